/** Jest global teardown: stops the PostgreSQL that global setup started. */
import type { TestDatabase } from '../../harness/database';

export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { __testDatabase__?: TestDatabase }).__testDatabase__;
  await database?.stop();
}
