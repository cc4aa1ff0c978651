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

export const CHANGE_TOPICS: readonly ChangeTopic[] = ['prices', 'candles', 'catalogue', 'status', 'session-limits', 'corporate-actions', 'api-keys'];

export interface ChangeListener {
  stop(): Promise<void>;
}

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
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  let client: Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next: Client = new PgClient({ connectionString });
    let lost = false;
    const onLost = (error: unknown): void => {
      if (lost || stopped) return;
      lost = true;
      next.end().catch(() => undefined);
      options.onConnectionLost?.(error);
      schedule(250);
    };
    next.on('error', onLost);
    next.on('end', () => onLost(new Error('the change listener connection ended')));
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) onChange(message.payload as ChangeTopic);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost = true;
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
    if (stopped) await next.end().catch(() => undefined);
  };

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      connect().then(
        () => {
          options.onReconnected?.();
          for (const topic of CHANGE_TOPICS) onChange(topic);
        },
        () => schedule(Math.min(maxRetryMs, delayMs * 2)),
      );
    }, delayMs);
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
