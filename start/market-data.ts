/**
 * The market-data part: with the simulated source (PRICE_SOURCE=simulated) the backfill of the gap since the last run
 * and the feed's ticks from then on; with an external source nothing runs, prices arrive through the ingestion
 * endpoint. Either way one pipeline turns ticks into latest prices and candles, and tells `onStored` of each batch
 * it committed (the live streams of the API part).
 */
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import { CATALOGUE } from '../domain/catalogue';
import { backfillMarketData } from '../price-feed/backfill';
import { startFeed } from '../price-feed/feed';
import { MarketDataPipeline, type StoredMarketData } from '../price-feed/pipeline';
import { SimulatedPriceSource } from '../price-feed/simulated-source';
import type { Part } from './parts';
import { progressReporter } from './progress';

export interface RunningMarketData extends Part {
  pipeline: MarketDataPipeline;
}

export async function startMarketData(
  settings: Pick<Config, 'PRICE_SOURCE' | 'PRICE_TICK_MS' | 'SIMULATION_SEED'>,
  options: { db: Database; logger: Logger; now: number; onStored?: (stored: StoredMarketData) => void },
): Promise<RunningMarketData> {
  const { db, logger, now } = options;
  const pipeline = new MarketDataPipeline(db, { onStored: options.onStored });
  let source: SimulatedPriceSource | undefined;
  if (settings.PRICE_SOURCE === 'simulated') {
    const started = Date.now();
    const written = await backfillMarketData({
      db,
      assets: CATALOGUE,
      now,
      seed: settings.SIMULATION_SEED,
      onProgress: progressReporter('backfilling market data', (message) => logger.info(message)),
    });
    logger.info({ candles: written, ms: Date.now() - started }, 'market data backfilled');
    source = new SimulatedPriceSource({
      assets: CATALOGUE,
      tickMs: settings.PRICE_TICK_MS,
      seed: settings.SIMULATION_SEED,
      onError: (error) => logger.error({ err: error }, 'price ticks failing (reported once until they recover)'),
      onRecovered: (failedTicks) => logger.info({ failedTicks }, 'price ticks flowing again'),
    });
  }
  const feed = startFeed({ pipeline, source });
  return { name: 'price feed', deadlineMs: 10_000, pipeline, stop: () => feed.stop() };
}
