/** Starts a throw-away embedded PostgreSQL for a test run or a benchmark (db/embedded.ts: own process group, any checkout path). */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { startEmbeddedPostgres } from '../db/embedded';

export interface TestDatabase {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-test-pg-'));
  // The server runs as the postgres user when the tests run as root: let it reach its directory.
  chmodSync(dataDir, 0o755);
  const database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  return {
    url: database.serverUrl,
    async stop() {
      await database.stop();
      rmSync(database.databaseDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
