/**
 * OHLC candles of every interval (`candles`), for the token (`primary`) and its underlying: live merges and
 * historical inserts, the ranges the API serves, statistics over them, retention, and the buckets the live streams
 * read back after a stored batch.
 */
import type { Queryable } from '../pool';

export type Market = 'primary' | 'underlying';

export interface CandleRecord {
  bucketStart: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

export interface CandleWrite extends CandleRecord {
  symbol: string;
  market: Market;
  interval: string;
}

function candleColumns(candles: CandleWrite[]): unknown[] {
  return [
    candles.map((c) => c.symbol),
    candles.map((c) => c.market),
    candles.map((c) => c.interval),
    candles.map((c) => c.bucketStart),
    candles.map((c) => c.open),
    candles.map((c) => c.high),
    candles.map((c) => c.low),
    candles.map((c) => c.close),
    candles.map((c) => c.volume),
  ];
}

const CANDLE_SOURCE = `SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::numeric[], $6::numeric[], $7::numeric[], $8::numeric[], $9::numeric[])`;

/**
 * Merges live partial candles into stored ones: the stored open stays, high/low widen,
 * close moves to the newer value and volume accumulates (each write carries only new volume).
 */
export async function mergeCandles(db: Queryable, candles: CandleWrite[]): Promise<void> {
  if (candles.length === 0) return;
  await db.query(
    `INSERT INTO candles (symbol, market, interval, bucket_start, open, high, low, close, volume) ${CANDLE_SOURCE}
     ON CONFLICT (symbol, market, interval, bucket_start) DO UPDATE SET
       high = GREATEST(candles.high, EXCLUDED.high), low = LEAST(candles.low, EXCLUDED.low),
       close = EXCLUDED.close, volume = candles.volume + EXCLUDED.volume`,
    candleColumns(candles),
  );
}

/** Inserts historical candles, leaving any candle that already exists untouched. */
export async function insertHistoricalCandles(db: Queryable, candles: CandleWrite[]): Promise<void> {
  if (candles.length === 0) return;
  await db.query(
    `INSERT INTO candles (symbol, market, interval, bucket_start, open, high, low, close, volume) ${CANDLE_SOURCE}
     ON CONFLICT DO NOTHING`,
    candleColumns(candles),
  );
}

/** Candles of one interval for both markets of a symbol from `from` (inclusive), oldest first. */
export async function listCandles(
  db: Queryable,
  parameters: { symbol: string; interval: string; from: number; to?: number },
): Promise<Record<Market, CandleRecord[]>> {
  const { rows } = await db.query<CandleRecord & { market: Market }>(
    `SELECT market, bucket_start AS "bucketStart", open::text, high::text, low::text, close::text, volume::text
       FROM candles
      WHERE symbol = $1 AND interval = $2 AND bucket_start >= $3 AND ($4::bigint IS NULL OR bucket_start < $4)
      ORDER BY bucket_start`,
    [parameters.symbol, parameters.interval, parameters.from, parameters.to ?? null],
  );
  const result: Record<Market, CandleRecord[]> = { primary: [], underlying: [] };
  for (const { market, ...candle } of rows) result[market].push(candle);
  return result;
}

/** Deletes candles of `interval` older than `before`; returns how many. */
export async function pruneCandles(db: Queryable, interval: string, before: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM candles WHERE interval = $1 AND bucket_start < $2', [interval, before]);
  return rowCount ?? 0;
}

/** The newest candle start per symbol/market of an interval, to resume a backfill where it stopped. */
export async function latestCandleStarts(db: Queryable, interval: string): Promise<Map<string, number>> {
  const { rows } = await db.query<{ symbol: string; market: Market; latest: number }>(
    `SELECT symbol, market, max(bucket_start) AS latest FROM candles WHERE interval = $1 GROUP BY symbol, market`,
    [interval],
  );
  return new Map(rows.map((row) => [`${row.symbol}/${row.market}`, row.latest]));
}

/** For each symbol, the open of its first 1-minute candle at or after `from`: the price a window started at. */
export async function windowOpenPrices(db: Queryable, market: Market, windows: { symbol: string; from: number }[]): Promise<Map<string, string>> {
  if (windows.length === 0) return new Map();
  const { rows } = await db.query<{ symbol: string; open: string }>(
    `SELECT w.symbol, c.open::text AS open
       FROM unnest($1::text[], $2::bigint[]) AS w(symbol, from_ms)
       CROSS JOIN LATERAL (
         SELECT open FROM candles
          WHERE symbol = w.symbol AND market = $3 AND interval = '1min' AND bucket_start >= w.from_ms
          ORDER BY bucket_start LIMIT 1) c`,
    [windows.map((w) => w.symbol), windows.map((w) => w.from), market],
  );
  return new Map(rows.map((row) => [row.symbol, row.open]));
}

export interface VolumeRecord {
  symbol: string;
  baseVolume: string;
  targetVolume: string;
}

/** Token volume over [from, now) per symbol, in tokens and in settlement units (Σ volume × close). */
export async function primaryVolumesSince(db: Queryable, from: number): Promise<Map<string, VolumeRecord>> {
  const { rows } = await db.query<VolumeRecord>(
    `SELECT symbol, sum(volume)::text AS "baseVolume", sum(volume * close)::text AS "targetVolume"
       FROM candles WHERE market = 'primary' AND interval = '1min' AND bucket_start >= $1
      GROUP BY symbol`,
    [from],
  );
  return new Map(rows.map((row) => [row.symbol, row]));
}

export interface DailyStatistics {
  high52w: string | null;
  low52w: string | null;
  lastVolume: string | null;
  averageVolume: string | null;
}

/** 52-week high/low, the latest day's volume and the 30-day average daily volume of a market. */
export async function dailyStatistics(db: Queryable, symbol: string, market: Market, now: number): Promise<DailyStatistics> {
  const yearAgo = now - 365 * 86_400_000;
  const monthAgo = now - 30 * 86_400_000;
  const { rows } = await db.query<DailyStatistics>(
    `SELECT max(high)::text AS "high52w", min(low)::text AS "low52w",
            (SELECT volume::text FROM candles WHERE symbol = $1 AND market = $2 AND interval = '1day'
              ORDER BY bucket_start DESC LIMIT 1) AS "lastVolume",
            (SELECT avg(volume)::text FROM candles WHERE symbol = $1 AND market = $2 AND interval = '1day'
              AND bucket_start >= $4) AS "averageVolume"
       FROM candles WHERE symbol = $1 AND market = $2 AND interval = '1day' AND bucket_start >= $3`,
    [symbol, market, yearAgo, monthAgo],
  );
  return rows[0]!;
}

export interface StoredCandle extends CandleRecord {
  symbol: string;
  market: Market;
  interval: string;
}

const STORED_COLUMNS = `symbol, market, interval, bucket_start AS "bucketStart", open::text, high::text, low::text, close::text, volume::text`;

/** The stored candles (both markets) of each (symbol, interval, bucket start). */
export async function readCandles(db: Queryable, keys: { symbol: string; interval: string; bucketStart: number }[]): Promise<StoredCandle[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<StoredCandle>(
    `SELECT ${STORED_COLUMNS} FROM candles
      WHERE (symbol, interval, bucket_start) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]))`,
    [keys.map((key) => key.symbol), keys.map((key) => key.interval), keys.map((key) => key.bucketStart)],
  );
  return rows;
}

/** The newest stored bucket of a symbol and interval (both markets), if any. */
export async function readNewestCandles(db: Queryable, symbol: string, interval: string): Promise<StoredCandle[]> {
  const { rows } = await db.query<StoredCandle>(
    `SELECT ${STORED_COLUMNS} FROM candles
      WHERE symbol = $1 AND interval = $2
        AND bucket_start = (SELECT max(bucket_start) FROM candles WHERE symbol = $1 AND interval = $2)`,
    [symbol, interval],
  );
  return rows;
}
