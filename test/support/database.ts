/** A fresh database per test file, cloned from the migrated, seeded and backfilled template (test/setup). */
import { createScratchDatabase, type ScratchDatabase } from '../../harness/database';

export const TEMPLATE_DATABASE = 'issuer_template';

/** A database a test uses: a clone of the template, or one the test wires itself. */
export type TestDb = Pick<ScratchDatabase, 'db' | 'url' | 'drop'>;

/** The PostgreSQL server of the test run (test/setup/global-setup.ts). */
export function testServerUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (test/setup/global-setup.ts)');
  return url;
}

export function cloneTemplateDatabase(): Promise<TestDb> {
  return createScratchDatabase(testServerUrl(), { prefix: 'test', template: TEMPLATE_DATABASE });
}
