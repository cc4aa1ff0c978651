/**
 * API benchmark: requests/s and p50/p99 latency of the latest-prices and 1min/1day OHLC endpoints
 * beside a bare Koa JSON endpoint on the same machine, 50 connections each, in one run.
 * The server runs in a child process so the load generator does not share its event loop; the load
 * comes from wrk when it is installed (`apt-get install wrk`), otherwise from autocannon.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { createPool } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { migrate } from '../db/migrate';
import { seedCatalogue } from '../db/seed';
import { CATALOGUE } from '../domain/catalogue';
import { backfillMarketData } from '../price-feed/backfill';
import { load, type LoadResult } from './load';

const CONNECTIONS = 50;

const get = (name: string, url: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> =>
  load({ name, url, seconds, connections: CONNECTIONS, headerSets: [headers] });

/** Migrates, seeds and backfills the benchmark database. */
export async function prepareBenchDatabase(databaseUrl: string): Promise<void> {
  const db = createPool(databaseUrl, 4);
  await migrate(db);
  await seedCatalogue(db, Date.now());
  await backfillMarketData({ db, assets: CATALOGUE, now: Date.now() });
  await db.end();
}

/** Starts the servers on a prepared database and measures. */
export async function benchApi(databaseUrl: string, seconds = 10): Promise<LoadResult[]> {
  const db = createPool(databaseUrl, 4);
  const { secret } = await createApiKey(db, { name: 'bench', scope: 'read', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 });
  await db.end();

  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl, BENCH_API_KEY: secret },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const urls = await new Promise<{ api: string; bare: string }>((resolve, reject) => {
      child.once('message', (message) => resolve(message as { api: string; bare: string }));
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    });
    const auth = { 'x-api-key': secret, 'accept-encoding': 'gzip' };
    // Warm up caches and JIT before measuring.
    await get('warm-up', `${urls.api}/v1/assets/all/prices/latest`, auth, 2);
    await get('warm-up', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, auth, 2);
    return [
      await get('bare Koa JSON (tiny object)', `${urls.bare}/`, {}, seconds),
      await get('bare Koa JSON (the latest-prices body)', `${urls.bare}/latest`, {}, seconds),
      await get('GET /v1/assets/all/prices/latest', `${urls.api}/v1/assets/all/prices/latest`, auth, seconds),
      await get('GET /v1/assets/AAPLon/prices/ohlc 1min/1day', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, auth, seconds),
      await get('  same, without gzip', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, { 'x-api-key': secret }, seconds),
    ];
  } finally {
    child.kill('SIGTERM');
  }
}
