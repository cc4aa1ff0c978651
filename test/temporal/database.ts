/**
 * A database of its own for a Temporal test file, on the PostgreSQL server of the test run
 * (TEST_DATABASE_URL, test/setup/global-setup.ts): the embedded service's durable mode creates its schema
 * there. Dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export interface TemporalTestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin<T>(serverUrl: string, action: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/** Creates `temporal_<name>_<random>` on `serverUrl` (default: the test run's server). */
export async function createTemporalTestDatabase(name: string, serverUrl = process.env.TEST_DATABASE_URL): Promise<TemporalTestDatabase> {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set: run tests through jest (test/setup/global-setup.ts)');
  const database = `temporal_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await admin(serverUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = serverUrl.replace(/\/[^/]*$/, `/${database}`);
  return {
    url,
    drop: () => admin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).then(() => undefined),
  };
}
