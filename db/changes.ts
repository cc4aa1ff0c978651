/**
 * Change notifications between processes: a write publishes a topic on PostgreSQL's
 * NOTIFY channel, and every API process listening drops what it cached for that topic.
 */
import type { Client } from 'pg';
import { Client as PgClient } from 'pg';
import type { Database } from './pool';

const CHANNEL = 'issuer_changes';

export type ChangeTopic = 'prices' | 'candles' | 'catalogue' | 'status' | 'session-limits' | 'corporate-actions' | 'api-keys';

/** Announces that `topic` changed, to this process's listeners and to every other process. */
export async function publishChange(db: Database, topic: ChangeTopic): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [CHANNEL, topic]);
}

export interface ChangeListener {
  stop(): Promise<void>;
}

/** Calls `onChange` for every topic published by any process (including this one). */
export async function listenForChanges(connectionString: string, onChange: (topic: ChangeTopic) => void): Promise<ChangeListener> {
  const client: Client = new PgClient({ connectionString });
  await client.connect();
  client.on('notification', (message) => {
    if (message.channel === CHANNEL && message.payload) onChange(message.payload as ChangeTopic);
  });
  client.on('error', () => undefined);
  await client.query(`LISTEN ${CHANNEL}`);
  return {
    async stop() {
      await client.end().catch(() => undefined);
    },
  };
}
