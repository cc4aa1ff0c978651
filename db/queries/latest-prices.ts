/** The latest price of every symbol (`latest_prices`): the token's and the underlying's, and when it was observed. */
import type { Queryable } from '../pool';

export interface LatestPriceRecord {
  symbol: string;
  tokenPrice: string;
  underlyingPrice: string;
  observedAt: number;
}

export async function listLatestPrices(db: Queryable): Promise<LatestPriceRecord[]> {
  const { rows } = await db.query<LatestPriceRecord>(
    `SELECT symbol, token_price::text AS "tokenPrice", underlying_price::text AS "underlyingPrice", observed_at AS "observedAt"
       FROM latest_prices ORDER BY symbol`,
  );
  return rows;
}

/** The latest price of one symbol, if it has one. */
export async function findLatestPrice(db: Queryable, symbol: string): Promise<LatestPriceRecord | undefined> {
  const { rows } = await db.query<LatestPriceRecord>(
    `SELECT symbol, token_price::text AS "tokenPrice", underlying_price::text AS "underlyingPrice", observed_at AS "observedAt"
       FROM latest_prices WHERE symbol = $1`,
    [symbol],
  );
  return rows[0];
}

export async function upsertLatestPrices(db: Queryable, prices: LatestPriceRecord[]): Promise<void> {
  if (prices.length === 0) return;
  await db.query(
    `INSERT INTO latest_prices (symbol, token_price, underlying_price, observed_at)
     SELECT * FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::bigint[])
     ON CONFLICT (symbol) DO UPDATE SET token_price = EXCLUDED.token_price, underlying_price = EXCLUDED.underlying_price,
       observed_at = EXCLUDED.observed_at
     WHERE latest_prices.observed_at <= EXCLUDED.observed_at`,
    [prices.map((p) => p.symbol), prices.map((p) => p.tokenPrice), prices.map((p) => p.underlyingPrice), prices.map((p) => p.observedAt)],
  );
}

/** The latest underlying price of the asset whose underlying is `ticker` (USD per share), if it has one. */
export async function latestUnderlyingPrice(db: Queryable, ticker: string): Promise<string | undefined> {
  const { rows } = await db.query<{ price: string }>(
    'SELECT p.underlying_price::text AS price FROM latest_prices p JOIN assets a USING (symbol) WHERE a.ticker = $1',
    [ticker],
  );
  return rows[0]?.price;
}
