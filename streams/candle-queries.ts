/** Reads of stored candles for the live streams: the buckets a stored batch touched, and a symbol's newest bucket. */
import type { Queryable } from '../db/pool';
import type { CandleRecord, Market } from '../db/queries/prices';

export interface StoredCandle extends CandleRecord {
  symbol: string;
  market: Market;
  interval: string;
}

const COLUMNS = `symbol, market, interval, bucket_start AS "bucketStart", open::text, high::text, low::text, close::text, volume::text`;

/** The stored candles (both markets) of each (symbol, interval, bucket start). */
export async function readCandles(db: Queryable, keys: { symbol: string; interval: string; bucketStart: number }[]): Promise<StoredCandle[]> {
  if (keys.length === 0) return [];
  const { rows } = await db.query<StoredCandle>(
    `SELECT ${COLUMNS} FROM candles
      WHERE (symbol, interval, bucket_start) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]))`,
    [keys.map((key) => key.symbol), keys.map((key) => key.interval), keys.map((key) => key.bucketStart)],
  );
  return rows;
}

/** The newest stored bucket of a symbol and interval (both markets), if any. */
export async function readNewestCandles(db: Queryable, symbol: string, interval: string): Promise<StoredCandle[]> {
  const { rows } = await db.query<StoredCandle>(
    `SELECT ${COLUMNS} FROM candles
      WHERE symbol = $1 AND interval = $2
        AND bucket_start = (SELECT max(bucket_start) FROM candles WHERE symbol = $1 AND interval = $2)`,
    [symbol, interval],
  );
  return rows;
}
