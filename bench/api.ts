/**
 * API benchmark: requests/s and p50/p99 latency of the latest-prices and 1min/1day OHLC endpoints
 * beside a bare Koa JSON endpoint on the same machine, 50 connections each, in one run.
 * The server runs in a child process so the load generator does not share its event loop; the load
 * comes from wrk when it is installed (`apt-get install wrk`), otherwise from autocannon.
 */
import { fork, spawnSync } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { createPool } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { migrate } from '../db/migrate';
import { seedCatalogue } from '../db/seed';
import { CATALOGUE } from '../domain/catalogue';
import { backfillMarketData } from '../market-data/backfill';

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

const CONNECTIONS = 50;

function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** wrk's latency figures ("6.28ms", "1.2s", "850.00us") in milliseconds. */
function wrkMs(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function loadWithWrk(name: string, url: string, headers: Record<string, string>, seconds: number): LoadResult {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const output = spawnSync('wrk', args, { encoding: 'utf8' }).stdout;
  const line = (pattern: RegExp) => pattern.exec(output)?.[1] ?? '';
  return {
    name,
    requestsPerSecond: Math.round(Number(line(/Requests\/sec:\s+([\d.]+)/))),
    p50Ms: wrkMs(line(/50%\s+(\S+)/)),
    p99Ms: wrkMs(line(/99%\s+(\S+)/)),
    errors: Number(line(/Non-2xx or 3xx responses:\s+(\d+)/) || 0) + Number(line(/Socket errors:.*timeout (\d+)/) || 0),
  };
}

async function loadWithAutocannon(name: string, url: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/** The load generator: wrk (Debian package, native) when installed, else autocannon (in-process, slower). */
export const loadGenerator = hasWrk() ? 'wrk' : 'autocannon';

export async function load(name: string, url: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> {
  return loadGenerator === 'wrk' ? loadWithWrk(name, url, headers, seconds) : loadWithAutocannon(name, url, headers, seconds);
}

/** Prepares the database (migrate, seed, backfill), starts the servers, measures. */
export async function benchApi(databaseUrl: string, seconds = 10): Promise<LoadResult[]> {
  const db = createPool(databaseUrl, 4);
  await migrate(db);
  await seedCatalogue(db, Date.now());
  await backfillMarketData({ db, assets: CATALOGUE, now: Date.now() });
  const { secret } = await createApiKey(db, { name: 'bench', scope: 'read', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 });
  await db.end();

  const child = fork(path.join(__dirname, 'api-server.ts'), [], {
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl },
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
    await load('warm-up', `${urls.api}/v1/assets/all/prices/latest`, auth, 2);
    await load('warm-up', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, auth, 2);
    return [
      await load('bare Koa JSON', `${urls.bare}/`, {}, seconds),
      await load('GET /v1/assets/all/prices/latest', `${urls.api}/v1/assets/all/prices/latest`, auth, seconds),
      await load('GET /v1/assets/AAPLon/prices/ohlc 1min/1day', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, auth, seconds),
      await load('  same, without gzip', `${urls.api}/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day`, { 'x-api-key': secret }, seconds),
    ];
  } finally {
    child.kill('SIGTERM');
  }
}
