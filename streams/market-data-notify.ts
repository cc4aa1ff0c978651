/**
 * Live market data between API processes: the process whose pipeline stored a batch announces it on PostgreSQL's
 * NOTIFY channel `issuer_market_data` (its prices and the candle buckets it touched); every other process's hub
 * publishes it as if its own pipeline had stored it (candles read back from PostgreSQL), so a client may stream from
 * any process. A process ignores its own announcements. After a lost connection the listener reconnects with a
 * growing pause and asks the hub to catch up from PostgreSQL.
 */
import { listenOnChannel } from '../db/listen';
import type { Database } from '../db/pool';
import { STREAM_INTERVALS } from './events';
import type { HubBatch } from './hub';

const CHANNEL = 'issuer_market_data';
/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
const MAX_PAYLOAD_CHARS = 7_000;
const STREAMED = new Set<string>(STREAM_INTERVALS);

interface Announcement {
  origin: string;
  prices: HubBatch['prices'];
  candles: HubBatch['candles'];
}

/** The payloads announcing `batch`, each under PostgreSQL's limit. */
export function announcementPayloads(origin: string, batch: HubBatch): string[] {
  const candles = new Map<string, HubBatch['candles'][number]>();
  for (const { symbol, interval, bucketStart } of batch.candles) {
    if (STREAMED.has(interval)) candles.set(`${symbol}|${interval}|${bucketStart}`, { symbol, interval, bucketStart });
  }
  const payloads: string[] = [];
  let current: Announcement = { origin, prices: [], candles: [] };
  let size = JSON.stringify(current).length;
  const add = (kind: 'prices' | 'candles', item: object): void => {
    const itemSize = JSON.stringify(item).length + 1;
    if (size + itemSize > MAX_PAYLOAD_CHARS) {
      payloads.push(JSON.stringify(current));
      current = { origin, prices: [], candles: [] };
      size = JSON.stringify(current).length;
    }
    (current[kind] as object[]).push(item);
    size += itemSize;
  };
  for (const price of batch.prices) add('prices', price);
  for (const candle of candles.values()) add('candles', candle);
  if (current.prices.length > 0 || current.candles.length > 0) payloads.push(JSON.stringify(current));
  return payloads;
}

/** Tells the other processes about a stored batch. */
export async function announceStored(db: Database, origin: string, batch: HubBatch): Promise<void> {
  const payloads = announcementPayloads(origin, batch);
  if (payloads.length === 0) return;
  await db.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [CHANNEL, payloads]);
}

export interface MarketDataListener {
  stop(): Promise<void>;
}

/**
 * Hands every batch another process announces to `onBatch`; `onResync` after a reconnection, since announcements
 * sent meanwhile are lost.
 */
export async function listenForMarketData(
  connectionString: string,
  origin: string,
  handlers: { onBatch: (batch: HubBatch) => void; onResync: () => void; onConnectionLost?: (error: unknown) => void },
  options: { maxRetryMs?: number } = {},
): Promise<MarketDataListener> {
  return await listenOnChannel(connectionString, CHANNEL, {
    onPayload: (payload) => {
      const announcement = JSON.parse(payload) as Announcement;
      if (announcement.origin !== origin) handlers.onBatch({ prices: announcement.prices, candles: announcement.candles });
    },
    onReconnected: handlers.onResync,
    onConnectionLost: handlers.onConnectionLost,
    maxRetryMs: options.maxRetryMs,
  });
}
