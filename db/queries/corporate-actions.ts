/** Shares-multiplier changes and dividends. Rows may be dated in the future; reads filter by time. */
import type { Queryable } from '../pool';

export interface MultiplierChangeRecord {
  sharesMultiplier: string;
  changeTimestamp: number;
  reason: string;
}

export interface DividendRecord {
  exDate: string;
  paymentDate: string;
  cashAmount: string;
}

/** Multiplier changes of a symbol in [from, until], oldest first. */
export async function listMultiplierChanges(
  db: Queryable,
  parameters: { symbol: string; from: number; until: number },
): Promise<MultiplierChangeRecord[]> {
  const { rows } = await db.query<MultiplierChangeRecord>(
    `SELECT shares_multiplier::text AS "sharesMultiplier", changed_at AS "changeTimestamp", reason
       FROM shares_multiplier_changes WHERE symbol = $1 AND changed_at >= $2 AND changed_at <= $3
      ORDER BY changed_at`,
    [parameters.symbol, parameters.from, parameters.until],
  );
  return rows;
}

/** The multiplier in force at `at` for every symbol that has one. */
export async function multipliersAt(db: Queryable, at: number): Promise<Map<string, string>> {
  const { rows } = await db.query<{ symbol: string; value: string }>(
    `SELECT DISTINCT ON (symbol) symbol, shares_multiplier::text AS value
       FROM shares_multiplier_changes WHERE changed_at <= $1 ORDER BY symbol, changed_at DESC`,
    [at],
  );
  return new Map(rows.map((row) => [row.symbol, row.value]));
}

/** Dividends of a symbol with an ex-date on or before `until` (YYYY-MM-DD), oldest first. */
export async function listDividends(db: Queryable, symbol: string, until: string): Promise<DividendRecord[]> {
  const { rows } = await db.query<DividendRecord>(
    `SELECT to_char(ex_date, 'YYYY-MM-DD') AS "exDate", to_char(payment_date, 'YYYY-MM-DD') AS "paymentDate",
            cash_amount::text AS "cashAmount"
       FROM dividends WHERE symbol = $1 AND ex_date <= $2::date ORDER BY ex_date`,
    [symbol, until],
  );
  return rows;
}
