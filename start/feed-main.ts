/**
 * The feed role (`npm run feed`, start/role.ts): the market-data pipeline against DATABASE_URL — with the simulated
 * source (PRICE_SOURCE=simulated) the backfill of the gap since the last run and a tick every PRICE_TICK_MS, each
 * stored batch announced to the API processes' live streams through PostgreSQL NOTIFY; with an external source nothing
 * runs here (prices arrive through an API's ingestion route). One feed per deployment: a second would store every
 * tick twice.
 */
import { randomUUID } from 'node:crypto';
import { announceStored } from '../streams/market-data-notify';
import { startMarketData } from './market-data';
import { runRole } from './role';

runRole({
  name: 'feed',
  usage: `usage: npm run feed   the market-data pipeline (run exactly one), configured by the environment (README, "Running in production"):
  DATABASE_URL and TEMPORAL_ADDRESS (required), PRICE_SOURCE, PRICE_TICK_MS, SIMULATION_SEED, METRICS_PORT; stops on SIGINT or SIGTERM`,
  variables: ['PRICE_SOURCE', 'PRICE_TICK_MS', 'SIMULATION_SEED'],
  async start({ config, logger, db, parts }) {
    const origin = randomUUID();
    const marketData = await startMarketData(config, {
      db,
      logger,
      now: Date.now(),
      onStored: (stored) =>
        void announceStored(db, origin, stored).catch((error: unknown) => logger.warn({ err: error }, 'announcing market data to the API processes failed')),
    });
    parts.add(marketData);
    logger.info({ source: config.PRICE_SOURCE, tickMs: config.PRICE_TICK_MS }, 'price feed running');
    return {};
  },
});
