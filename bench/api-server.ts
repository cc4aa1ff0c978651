/**
 * Child process of the benchmark: serves the real app (on the database named by BENCH_DATABASE_URL, configured as
 * the product runs by default) and bare Koa JSON endpoints, each on its own port, and reports both to the parent.
 */
import Koa from 'koa';
import { listen } from '../api/server';
import { createLogger } from '../config/logger';
import { createPool } from '../db/pool';
import { defaultConfig } from '../harness/settings';
import { createProductApp } from '../start/api';

async function main(): Promise<void> {
  const db = createPool(process.env.BENCH_DATABASE_URL!, 20);
  // Request logs are kept (the product's logger, at info, as JSON to the ignored stdout) so the app pays what it
  // pays in production.
  const logger = createLogger({ level: 'info', format: 'json' });
  const app = createProductApp({ config: defaultConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1' }), db, logger });
  const api = await listen(app, { host: '127.0.0.1', port: 0 });

  // The bare endpoints: a tiny JSON object, and the latest-prices answer itself (serialised per request,
  // as a plain Koa JSON handler would), so the comparison can be made at equal payload.
  const latest = await fetch(`${api.url}/v1/assets/all/prices/latest`, { headers: { 'x-api-key': process.env.BENCH_API_KEY! } });
  const samePayload: unknown = await latest.json();
  const tiny = { ok: true, items: [1, 2, 3] };
  const bare = new Koa();
  bare.use((ctx) => {
    ctx.body = ctx.path === '/latest' ? samePayload : tiny;
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((resolve) => bareServer.once('listening', resolve));
  const address = bareServer.address();
  // A signal ends the process cleanly (a --cpu-prof profile is written).
  process.on('SIGTERM', () => process.exit(0));
  process.send!({ api: api.url, bare: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
