/**
 * Migrations of the Temporal service's own schema (`temporal`): the `.sql` files of temporal-server/migrations,
 * applied in name order, each once, under an advisory lock so that two services starting together do not race.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Pool } from 'pg';

const migrationsDirectory = path.join(__dirname, '..', 'migrations');

/** Applies the migrations not yet applied; returns their names. */
export async function migrateTemporalSchema(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('temporal-server migrations'))");
    await client.query('CREATE SCHEMA IF NOT EXISTS temporal');
    await client.query('CREATE TABLE IF NOT EXISTS temporal.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const applied = new Set((await client.query<{ name: string }>('SELECT name FROM temporal.schema_migrations')).rows.map((row) => row.name));
    const pending = readdirSync(migrationsDirectory)
      .filter((file) => file.endsWith('.sql') && !applied.has(file))
      .sort();
    for (const file of pending) {
      await client.query(readFileSync(path.join(migrationsDirectory, file), 'utf8'));
      await client.query('INSERT INTO temporal.schema_migrations (name) VALUES ($1)', [file]);
    }
    await client.query('COMMIT');
    return pending;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error('Temporal service: migrating the temporal schema failed', { cause: error });
  } finally {
    client.release();
  }
}
