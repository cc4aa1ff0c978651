/**
 * Throw-away PostgreSQL for a test run or a benchmark: a server of its own (embedded, db/embedded.ts: own process
 * group, any checkout path; its files removed even when this process is killed, harness/reaper.ts), and scratch
 * databases on a server — empty or copied from a template — each with a pool, dropped when done.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../config/free-port';
import { startEmbeddedPostgres } from '../db/embedded';
import { createPool, type Database } from '../db/pool';
import { removeWithThisProcess } from './reaper';

export interface TestDatabase {
  url: string;
  stop(): Promise<void>;
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-test-pg-'));
  // The server runs as the postgres user when the tests run as root: let it reach its directory.
  chmodSync(dataDir, 0o755);
  const forgetDataDir = removeWithThisProcess(dataDir);
  const database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  return {
    url: database.serverUrl,
    async stop() {
      await database.stop();
      rmSync(database.databaseDir, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
      forgetDataDir();
    },
  };
}

export interface ScratchDatabase {
  name: string;
  url: string;
  /** A pool on it (connections open on first use). */
  db: Database;
  /** Ends the pool, waits briefly for the server to let its connections go, then drops the database. */
  drop(): Promise<void>;
}

export interface ScratchDatabaseOptions {
  /** The new database is `<prefix>_<random>`. */
  prefix: string;
  /** Copied from this database (which nobody may be connected to). */
  template?: string;
  /** The pool's size (default 10). */
  poolSize?: number;
}

async function onServer<T>(serverUrl: string, action: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server `serverUrl` names (any database of it). */
export function databaseUrlOn(serverUrl: string, name: string): string {
  return serverUrl.replace(/\/[^/]*$/, `/${name}`);
}

/** A database of its own on the PostgreSQL server at `serverUrl`. */
export async function createScratchDatabase(serverUrl: string, options: ScratchDatabaseOptions): Promise<ScratchDatabase> {
  const name = `${options.prefix}_${randomBytes(6).toString('hex')}`;
  // FILE_COPY clones a large template much faster than the default WAL-logged copy.
  const copy = options.template ? ` TEMPLATE ${options.template} STRATEGY = FILE_COPY` : '';
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}${copy}`));
  const url = databaseUrlOn(serverUrl, name);
  const db = createPool(url, options.poolSize ?? 10);
  let dropping: Promise<void> | undefined;
  return {
    name,
    url,
    db,
    drop: () => {
      dropping ??= (async () => {
        await db.end();
        await onServer(serverUrl, async (client) => {
          // The pool's connections are still saying goodbye when end() resolves; forcing them closed would surface as
          // an unhandled error on their clients, so wait (briefly) until the server has let them go.
          for (let waited = 0; waited < 5_000; waited += 20) {
            const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
            if (rows[0]!.n === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        });
      })();
      return dropping;
    },
  };
}
