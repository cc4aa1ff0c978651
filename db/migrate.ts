/**
 * The one migration runner: applies the `.sql` files of a directory in name order, each once and inside its own
 * transaction, recorded in `<schema>.schema_migrations`, under an advisory lock so that concurrent starts do not
 * race. The product (db/migrations, schema `public`), the brokerage sandbox (broker/migrations, `broker`) and the
 * embedded Temporal service (temporal-server/migrations, `temporal`) each name their own set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';

export interface MigrationSet {
  /** Who the migrations belong to, as errors and progress lines name it (`product`, `broker`, `temporal`). */
  name: string;
  directory: string;
  /** Schema holding the set's `schema_migrations` table; created when missing. */
  schema: string;
  /** `pg_advisory_lock` key held while the set is applied; one per set. */
  lockKey: number;
}

export interface MigrateOptions {
  onProgress?: (message: string) => void;
}

/** Applies the migrations of `set` not yet applied; returns their file names. */
export async function applyMigrations(db: Pool, set: MigrationSet, options: MigrateOptions = {}): Promise<string[]> {
  const client = await db.connect();
  const applied: string[] = [];
  const ledger = `${set.schema}.schema_migrations`;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [set.lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${set.schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${ledger} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${ledger}`);
    const done = new Set(rows.map((row) => row.name));
    const pending = readdirSync(set.directory)
      .filter((file) => file.endsWith('.sql') && !done.has(file))
      .sort();
    for (const file of pending) {
      options.onProgress?.(`applying ${set.name} migration ${file}`);
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(path.join(set.directory, file), 'utf8'));
        await client.query(`INSERT INTO ${ledger} (name) VALUES ($1)`, [file]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`${set.name} migration ${file} failed`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [set.lockKey]).catch(() => undefined);
    client.release();
  }
  return applied;
}

/** The product's own schema. */
export const PRODUCT_MIGRATIONS: MigrationSet = {
  name: 'product',
  directory: path.join(__dirname, 'migrations'),
  schema: 'public',
  lockKey: 7_411_001,
};

/** Applies the product's migrations (db/migrations); returns the names it applied. */
export async function migrate(db: Pool, options: MigrateOptions = {}): Promise<string[]> {
  return applyMigrations(db, PRODUCT_MIGRATIONS, options);
}
