/**
 * Each benchmark phase on a database of its own, copied from one template that is migrated, seeded and backfilled
 * once: no phase sees what an earlier one left behind (keys, attestations, the prices an attestation phase's shifted
 * clock stored in a later session, which once kept the live streams from delivering anything after them).
 */
import { Client } from 'pg';
import { createScratchDatabase, type ScratchDatabase } from '../harness/database';
import { prepareBenchDatabase } from './api';

export interface BenchDatabases {
  /** Runs `measure` on a fresh copy of the prepared database, dropped afterwards. */
  phase<T>(measure: (databaseUrl: string) => Promise<T>): Promise<T>;
  drop(): Promise<void>;
}

async function waitUntilUnused(serverUrl: string, name: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (let waited = 0; waited < 5_000; waited += 20) {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}

/** Prepares the template on the PostgreSQL server at `serverUrl` (any of its databases). */
export async function benchDatabases(serverUrl: string): Promise<BenchDatabases> {
  const template: ScratchDatabase = await createScratchDatabase(serverUrl, { prefix: 'bench_template', poolSize: 1 });
  await prepareBenchDatabase(template.url);
  await waitUntilUnused(serverUrl, template.name);
  return {
    async phase(measure) {
      const copy = await createScratchDatabase(serverUrl, { prefix: 'bench', template: template.name, poolSize: 1 });
      try {
        return await measure(copy.url);
      } finally {
        await copy.drop();
      }
    },
    drop: () => template.drop(),
  };
}
