/**
 * Change notifications between processes: a write publishes a topic on PostgreSQL's
 * NOTIFY channel, and every API process listening drops what it cached for that topic.
 */
import { listenOnChannel, type ChannelListener } from './listen';
import type { Database } from './pool';

const CHANNEL = 'issuer_changes';

export type ChangeTopic = 'prices' | 'candles' | 'catalogue' | 'status' | 'session-limits' | 'corporate-actions' | 'api-keys';

/** Announces that `topic` changed, to this process's listeners and to every other process. */
export async function publishChange(db: Database, topic: ChangeTopic): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [CHANNEL, topic]);
}

export const CHANGE_TOPICS: readonly ChangeTopic[] = ['prices', 'candles', 'catalogue', 'status', 'session-limits', 'corporate-actions', 'api-keys'];

export type ChangeListener = ChannelListener;

/**
 * Calls `onChange` for every topic published by any process (including this one). When the connection breaks
 * (the database restarted or went away) it reconnects with a growing pause (up to `maxRetryMs`); notifications sent
 * meanwhile are lost, so after reconnecting it calls `onChange` once for every topic.
 */
export async function listenForChanges(
  connectionString: string,
  onChange: (topic: ChangeTopic) => void,
  options: { maxRetryMs?: number; onConnectionLost?: (error: unknown) => void; onReconnected?: () => void } = {},
): Promise<ChangeListener> {
  return await listenOnChannel(connectionString, CHANNEL, {
    onPayload: (payload) => onChange(payload as ChangeTopic),
    onReconnected: () => {
      options.onReconnected?.();
      for (const topic of CHANGE_TOPICS) onChange(topic);
    },
    onConnectionLost: options.onConnectionLost,
    maxRetryMs: options.maxRetryMs,
  });
}
