/**
 * Child process of the benchmark: serves the real app (on the database named by BENCH_DATABASE_URL)
 * and a bare Koa JSON endpoint, each on its own port, and reports both ports to the parent.
 */
import Koa from 'koa';
import pino from 'pino';
import { createApp } from '../api/app';
import { listen } from '../api/server';
import { createPool } from '../db/pool';

async function main(): Promise<void> {
  const db = createPool(process.env.BENCH_DATABASE_URL!, 20);
  // Request logs are kept (at info, as JSON) so the app pays what it pays in production.
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const app = createApp({
    config: { PUBLIC_BASE_URL: 'http://127.0.0.1', RATE_LIMIT_PER_SECOND: 50, RATE_LIMIT_BURST: 100, BODY_LIMIT_BYTES: 65_536, API_KEY_CACHE_SECONDS: 5 },
    db,
    logger,
  });
  const api = await listen(app, { host: '127.0.0.1', port: 0 });

  const bare = new Koa();
  const payload = { ok: true, items: [1, 2, 3] };
  bare.use((ctx) => {
    ctx.body = payload;
  });
  const bareServer = bare.listen(0, '127.0.0.1');
  await new Promise((resolve) => bareServer.once('listening', resolve));
  const address = bareServer.address();
  process.send!({ api: api.url, bare: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
