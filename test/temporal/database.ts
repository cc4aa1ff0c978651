/**
 * A database of its own for a Temporal test file, on the PostgreSQL server of the test run
 * (TEST_DATABASE_URL, test/setup/global-setup.ts): the embedded service's durable mode creates its schema
 * there. Dropped at the end.
 */
import { createScratchDatabase, type ScratchDatabase } from '../../harness/database';
import { testServerUrl } from '../support/database';

export type TemporalTestDatabase = ScratchDatabase;

/** Creates `temporal_<name>_<random>` on `serverUrl` (default: the test run's server). */
export function createTemporalTestDatabase(name: string, serverUrl = testServerUrl()): Promise<TemporalTestDatabase> {
  return createScratchDatabase(serverUrl, { prefix: `temporal_${name.replace(/\W/g, '_')}` });
}
