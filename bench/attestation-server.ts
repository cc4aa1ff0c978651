/**
 * Child process of the attestation benchmark: the simulated price feed (so prices stay fresh) and the app on one
 * database, configured as the product runs by default (validation + price + limits + insert + sign; each attestation
 * stored with the request for its workflow, which a worker process starts).
 */
import { listen } from '../api/server';
import { createLogger } from '../config/logger';
import { createPool } from '../db/pool';
import { recordFixtureDeployments } from '../harness/fixture-deployments';
import { CATALOGUE } from '../domain/catalogue';
import { Decimal } from '../domain/money';
import { startFeed } from '../price-feed/feed';
import { MarketDataPipeline } from '../price-feed/pipeline';
import { SimulatedPriceSource } from '../price-feed/simulated-source';
import { defaultConfig } from '../harness/settings';
import { loadSigners } from '../signing';
import { createProductApp } from '../start/api';
import { solanaAccountsOf } from '../start/solana';

async function main(): Promise<void> {
  const db = createPool(process.env.BENCH_DATABASE_URL!, 20);
  // The benchmark may shift this process's clock into a given session (prices and the app agree on it).
  const offset = Number(process.env.BENCH_CLOCK_OFFSET_MS ?? 0);
  const clock = () => Date.now() + offset;
  // The product's logger at info, as JSON to the ignored stdout: request logs cost what they cost in production.
  const logger = createLogger({ level: 'info', format: 'json' });
  const feed = startFeed({ pipeline: new MarketDataPipeline(db), source: new SimulatedPriceSource({ assets: CATALOGUE, tickMs: 1_000, clock }) });
  // Attestations sign for a deployed token manager; this benchmark never touches a chain, so fixture deployments do.
  await recordFixtureDeployments(db);
  const app = {
    config: defaultConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1' }),
    db,
    logger,
    clock,
    signers: loadSigners({ dataDir: process.env.BENCH_DATA_DIR! }),
    // Solana attestations are built for the mints and treasury derived from the same key.
    solana: await solanaAccountsOf({ keys: {}, dataDir: process.env.BENCH_DATA_DIR! }),
    // The off-hours exposure caps never bite.
    attestationSettings: { offhoursGlobalExposure: new Decimal('1e15'), offhoursAssetExposure: new Decimal('1e15') },
  };
  const api = await listen(createProductApp(app), { host: '127.0.0.1', port: 0 });
  process.send!({ url: api.url });
  process.on('SIGTERM', () => {
    void feed.stop().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
