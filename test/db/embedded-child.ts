/**
 * A stand-in for `npm start` in the embedded-PostgreSQL tests (run with tsx): starts the server on DATA_DIR and PORT,
 * prints `{"ready":pid}`, and on SIGINT keeps using the database for a moment (as a draining worker does) before it
 * stops the server, printing `drained` and `stopped`.
 */
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../db/embedded';

async function main(): Promise<void> {
  const database = await startEmbeddedPostgres({ dataDir: process.env.DATA_DIR!, port: Number(process.env.PORT) });
  // stands in for the servers that keep `npm start` alive
  const alive = setInterval(() => undefined, 60_000);
  process.on('SIGINT', () => {
    void (async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query('SELECT pg_sleep(0.2)');
      await client.end();
      process.stdout.write('drained\n');
      await database.stop();
      process.stdout.write('stopped\n');
      clearInterval(alive);
      process.exit(0);
    })().catch((error: unknown) => {
      process.stdout.write(`failed: ${String(error)}\n`);
      process.exit(1);
    });
  });
  // Ready only once Ctrl-C is handled: a SIGINT sent on this line would otherwise end the process at once.
  process.stdout.write(`${JSON.stringify({ ready: database.pid })}\n`);
}

void main();
