/**
 * LISTEN on a PostgreSQL NOTIFY channel on a connection of its own that survives the database: when the connection
 * breaks (the server restarted or went away) it reconnects with a growing pause (250 ms doubling up to
 * `maxRetryMs`). Notifications sent meanwhile are lost, so `onReconnected` tells the caller to catch up.
 */
import { Client } from 'pg';

export interface ChannelListener {
  stop(): Promise<void>;
}

export interface ListenOptions {
  /** Each notification's payload (notifications without one are skipped). */
  onPayload: (payload: string) => void;
  onReconnected?: () => void;
  onConnectionLost?: (error: unknown) => void;
  /** Longest pause between reconnection attempts, default 10 s. */
  maxRetryMs?: number;
}

/** Listens on `channel`; the first connection must succeed (it throws otherwise), later ones are retried. */
export async function listenOnChannel(connectionString: string, channel: string, options: ListenOptions): Promise<ChannelListener> {
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  let client: Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString });
    // Until it listens, a failure is the attempt's own (its caller retries it); only a listening connection's loss
    // starts the reconnection loop. pg emits `end` for a connection refused while connecting before the refusal reaches
    // the caller, so a loss counted from the start made every refused attempt two retries: thousands within seconds.
    let listening = false;
    let lost = false;
    const onLost = (error: unknown): void => {
      if (!listening || lost || stopped) return;
      lost = true;
      next.end().catch(() => undefined);
      options.onConnectionLost?.(error);
      schedule(250);
    };
    next.on('error', onLost);
    next.on('end', () => onLost(new Error(`the ${channel} listener connection ended`)));
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload) options.onPayload(message.payload);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${channel}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    listening = true;
    client = next;
    if (stopped) await next.end().catch(() => undefined);
  };

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      connect().then(
        () => options.onReconnected?.(),
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
