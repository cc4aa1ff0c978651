/** A fresh database per test file, cloned from the migrated, seeded and backfilled template. */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createPool, type Database } from '../../db/pool';

const TEMPLATE = 'issuer_template';

export interface TestDb {
  db: Database;
  url: string;
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (test/setup/global-setup.ts)');
  return url;
}

export async function cloneTemplateDatabase(): Promise<TestDb> {
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl() });
  await admin.connect();
  // FILE_COPY clones a large template much faster than the default WAL-logged copy.
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE} STRATEGY = FILE_COPY`);
  await admin.end();
  const url = serverUrl().replace(/\/postgres$/, `/${name}`);
  const db = createPool(url, 10);
  return {
    db,
    url,
    async drop() {
      await db.end();
      const cleanup = new Client({ connectionString: serverUrl() });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}
