/**
 * Child process of the attestation benchmark: the simulated price feed (so prices stay fresh) and two
 * apps on one database — the real one, which starts each attestation's workflow, and the floor,
 * identical but without a workflow service (validation + price + limits + insert + sign).
 */
import pino from 'pino';
import { createApp } from '../api/app';
import { listen } from '../api/server';
import { createPool } from '../db/pool';
import { recordFixtureDeployments } from '../harness/fixture-deployments';
import { CATALOGUE } from '../domain/catalogue';
import { Decimal } from '../domain/money';
import { startFeed } from '../price-feed/feed';
import { MarketDataPipeline } from '../price-feed/pipeline';
import { SimulatedPriceSource } from '../price-feed/simulated-source';
import { loadSigners } from '../signing';
import { createTemporalClient } from '../temporal/client';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';

async function main(): Promise<void> {
  const db = createPool(process.env.BENCH_DATABASE_URL!, 20);
  // The benchmark may shift this process's clock into a given session (prices and the app agree on it).
  const offset = Number(process.env.BENCH_CLOCK_OFFSET_MS ?? 0);
  const clock = () => Date.now() + offset;
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const feed = startFeed({ pipeline: new MarketDataPipeline(db), source: new SimulatedPriceSource({ assets: CATALOGUE, tickMs: 1_000, clock }) });
  // Attestations sign for a deployed token manager; this benchmark never touches a chain, so fixture deployments do.
  await recordFixtureDeployments(db);
  const temporal = await createTemporalClient({ address: process.env.BENCH_TEMPORAL_ADDRESS!, namespace: 'default' });
  const attestations = {
    signers: loadSigners({ dataDir: process.env.BENCH_DATA_DIR! }),
    settings: {
      maxPriceAgeMs: 15_000,
      limitedMaxOrderNotional: new Decimal('10000'),
      offhoursGlobalExposure: new Decimal('1e15'),
      offhoursAssetExposure: new Decimal('1e15'),
    },
    taskQueue: ISSUER_TASK_QUEUE,
    settlementGraceMs: 60_000,
  };
  const config = { PUBLIC_BASE_URL: 'http://127.0.0.1', RATE_LIMIT_PER_SECOND: 50, RATE_LIMIT_BURST: 100, BODY_LIMIT_BYTES: 65_536, API_KEY_CACHE_SECONDS: 5, AUTH_FAILURES_PER_MINUTE: 10 };
  const real = await listen(createApp({ config, db, logger, clock, temporal, attestations }), { host: '127.0.0.1', port: 0 });
  const floor = await listen(createApp({ config, db, logger, clock, attestations }), { host: '127.0.0.1', port: 0 });
  process.send!({ real: real.url, floor: floor.url });
  process.on('SIGTERM', () => {
    void feed.stop().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
