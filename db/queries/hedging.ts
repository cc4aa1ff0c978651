/**
 * Hedges of final attestation executions: the obligations (written by the chain watcher at finality,
 * chain-observations.ts), the batches a hedging workflow nets them into, one order per side of a batch, and the carry
 * rounding and short fills leave per underlying and side. Nothing owed is ever dropped: an obligation's shares are in
 * an order's fill, in the carry, or in an order under review.
 */
import type { PoolClient } from 'pg';
import { inTransaction, type Database, type Queryable } from '../pool';
import { Decimal, Rounding } from '../../domain/money';

export type HedgeSide = 'buy' | 'sell';

export interface HedgeOrderRecord {
  batchId: string;
  side: HedgeSide;
  underlying: string;
  clientOrderId: string;
  sharesOwed: string;
  qty: string;
  state: 'pending' | 'filled' | 'canceled' | 'review';
  brokerOrderId: string | null;
  filledQty: string;
  filledAvgPrice: string | null;
  lastError: string | null;
  reason: string | null;
}

const ORDER_COLUMNS = `batch_id AS "batchId", side, underlying, client_order_id AS "clientOrderId", trim_scale(shares_owed)::text AS "sharesOwed",
  trim_scale(qty)::text AS qty, state, broker_order_id AS "brokerOrderId", trim_scale(filled_qty)::text AS "filledQty",
  trim_scale(filled_avg_price)::text AS "filledAvgPrice", last_error AS "lastError", reason`;

/** Broker quantities carry nine decimals. */
const SHARE_DECIMALS = 9;

export interface HedgeBatch {
  batchId: string;
  underlying: string;
  orders: HedgeOrderRecord[];
}

async function batchOrders(db: Queryable, batchId: string): Promise<HedgeOrderRecord[]> {
  const { rows } = await db.query<HedgeOrderRecord>(`SELECT ${ORDER_COLUMNS} FROM hedge_orders WHERE batch_id = $1 ORDER BY side`, [batchId]);
  return rows;
}

async function addCarry(db: Queryable, underlying: string, side: HedgeSide, shares: string): Promise<void> {
  await db.query(
    `INSERT INTO hedge_carry (underlying, side, shares) VALUES ($1, $2, $3)
     ON CONFLICT (underlying, side) DO UPDATE SET shares = hedge_carry.shares + EXCLUDED.shares, updated_at = clock_timestamp()`,
    [underlying, side, shares],
  );
}

/**
 * A side's carry that is owed on its own: ordered alone it would order at least one unit (buys round up, sells down).
 * Rounding never leaves one (it carries less than a unit toward the backing); what a canceled order did not fill does.
 */
const CARRY_DUE = `((side = 'buy' AND shares > 0) OR (side = 'sell' AND shares >= 0.000000001))`;

/**
 * The open batch of `underlying`, or a new one netting every obligation owed and not yet batched, and a carry due on
 * a side with none (undefined: nothing owed). Per side, what the obligations owe plus the carry is ordered rounded to
 * nine decimals toward the backing — buys up, sells down — and the difference carried to the next batch; a side
 * owing less than one unit orders nothing and carries it all. Idempotent: a retry finds the batch the first attempt
 * opened.
 *
 * The chain watcher writes obligations without this lock, so the batch takes them and sums what it took in one
 * statement: an obligation committed while the batch opens is in the batch and its orders, or in neither.
 */
export async function openHedgeBatch(db: Database, underlying: string): Promise<HedgeBatch | undefined> {
  return await inTransaction(db, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`hedge:${underlying}`]);
    const { rows: open } = await client.query<{ batch_id: string }>(`SELECT batch_id FROM hedge_batches WHERE underlying = $1 AND state = 'open'`, [underlying]);
    if (open[0]) return { batchId: open[0].batch_id, underlying, orders: await batchOrders(client, open[0].batch_id) };
    const { rowCount: waiting } = await client.query(
      `SELECT 1 FROM hedge_obligations WHERE underlying = $1 AND batch_id IS NULL
       UNION ALL SELECT 1 FROM hedge_carry WHERE underlying = $1 AND ${CARRY_DUE} LIMIT 1`,
      [underlying],
    );
    if (!waiting) return undefined;
    const { rows: seq } = await client.query<{ seq: number }>(`SELECT COALESCE(max(seq), 0) + 1 AS seq FROM hedge_batches WHERE underlying = $1`, [underlying]);
    const batchId = `hedge-${underlying}-${seq[0]!.seq}`;
    await client.query(`INSERT INTO hedge_batches (batch_id, underlying, seq, state) VALUES ($1, $2, $3, 'open')`, [batchId, underlying, seq[0]!.seq]);
    const { rows: owed } = await client.query<{ side: HedgeSide; shares: string }>(
      `WITH taken AS (UPDATE hedge_obligations SET batch_id = $2 WHERE underlying = $1 AND batch_id IS NULL RETURNING side, shares)
       SELECT side, sum(shares)::text AS shares
         FROM (SELECT side, shares FROM taken UNION ALL SELECT side, 0 FROM hedge_carry WHERE underlying = $1 AND ${CARRY_DUE}) owed
        GROUP BY side ORDER BY side`,
      [underlying, batchId],
    );
    for (const { side, shares } of owed) {
      const { rows: carried } = await client.query<{ shares: string }>(
        `DELETE FROM hedge_carry WHERE underlying = $1 AND side = $2 RETURNING shares::text`,
        [underlying, side],
      );
      const total = new Decimal(shares).plus(carried[0]?.shares ?? 0);
      const qty = total.toDecimalPlaces(SHARE_DECIMALS, side === 'buy' ? Rounding.UP : Rounding.DOWN);
      if (qty.lte(0)) {
        await addCarry(client, underlying, side, total.toFixed());
        continue;
      }
      await addCarry(client, underlying, side, total.minus(qty).toFixed());
      await client.query(
        `INSERT INTO hedge_orders (batch_id, side, underlying, client_order_id, shares_owed, qty, state) VALUES ($1, $2, $3, $4, $5, $6, 'pending')`,
        [batchId, side, underlying, `${batchId}-${side}`, total.toFixed(), qty.toFixed()],
      );
    }
    const orders = await batchOrders(client, batchId);
    if (orders.length === 0) await client.query(`UPDATE hedge_batches SET state = 'done', settled_at = clock_timestamp() WHERE batch_id = $1`, [batchId]);
    return { batchId, underlying, orders };
  });
}

export async function findHedgeOrder(db: Queryable, batchId: string, side: HedgeSide): Promise<HedgeOrderRecord | undefined> {
  const { rows } = await db.query<HedgeOrderRecord>(`SELECT ${ORDER_COLUMNS} FROM hedge_orders WHERE batch_id = $1 AND side = $2`, [batchId, side]);
  return rows[0];
}

/** Why the order waits (held, broker down), shown to operators; counts the attempt. */
export async function recordHedgeWait(db: Queryable, batchId: string, side: HedgeSide, why: string, placed?: { brokerOrderId: string }): Promise<void> {
  await db.query(
    `UPDATE hedge_orders SET last_error = $3, attempts = attempts + 1, broker_order_id = COALESCE($4, broker_order_id),
            placed_at = COALESCE(placed_at, CASE WHEN $4::text IS NULL THEN NULL ELSE clock_timestamp() END), updated_at = clock_timestamp()
      WHERE batch_id = $1 AND side = $2 AND state = 'pending'`,
    [batchId, side, why, placed?.brokerOrderId ?? null],
  );
}

/**
 * The broker's order reached its end: `filled`; `canceled` (what did not fill carried to the next batch, so it is
 * ordered again); `review` (rejected for good, with the broker's reason: what did not fill stays owed by this order
 * until an operator acts). Once only: a second report of a settled order changes nothing.
 */
export async function recordHedgeOutcome(
  db: Database,
  outcome: { batchId: string; side: HedgeSide; state: 'filled' | 'canceled' | 'review'; brokerOrderId: string | null; filledQty: string; filledAvgPrice: string | null; reason: string | null; filledAt: number | null },
): Promise<void> {
  await inTransaction(db, async (client: PoolClient) => {
    const { rows } = await client.query<{ underlying: string; qty: string }>(
      `UPDATE hedge_orders SET state = $3, broker_order_id = COALESCE($4, broker_order_id), filled_qty = $5, filled_avg_price = $6, reason = $7,
              filled_at = CASE WHEN $8::bigint IS NULL THEN NULL ELSE to_timestamp($8::bigint / 1000.0) END, updated_at = clock_timestamp()
        WHERE batch_id = $1 AND side = $2 AND state = 'pending'
       RETURNING underlying, qty::text`,
      [outcome.batchId, outcome.side, outcome.state, outcome.brokerOrderId, outcome.filledQty, outcome.filledAvgPrice, outcome.reason, outcome.filledAt],
    );
    const settled = rows[0];
    if (settled && outcome.state === 'canceled') {
      const rest = new Decimal(settled.qty).minus(outcome.filledQty);
      if (rest.gt(0)) await addCarry(client, settled.underlying, outcome.side, rest.toFixed());
    }
  });
}

/** Closes the batch: `review` when an order went to review, else `done`. */
export async function settleHedgeBatch(db: Queryable, batchId: string): Promise<'done' | 'review'> {
  const { rows } = await db.query<{ state: 'done' | 'review' }>(
    `UPDATE hedge_batches b SET state = CASE WHEN EXISTS (SELECT 1 FROM hedge_orders o WHERE o.batch_id = b.batch_id AND o.state = 'review') THEN 'review' ELSE 'done' END,
            settled_at = clock_timestamp()
      WHERE batch_id = $1 AND state = 'open'
     RETURNING state`,
    [batchId],
  );
  if (rows[0]) return rows[0].state;
  const { rows: current } = await db.query<{ state: 'done' | 'review' }>('SELECT state FROM hedge_batches WHERE batch_id = $1', [batchId]);
  return current[0]!.state;
}

/** Underlyings with obligations not batched yet, a carry due or a batch still open: their hedging workflows must run. */
export async function underlyingsOwed(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ underlying: string }>(
    `SELECT underlying FROM hedge_obligations WHERE batch_id IS NULL
     UNION SELECT underlying FROM hedge_carry WHERE ${CARRY_DUE}
     UNION SELECT underlying FROM hedge_batches WHERE state = 'open' ORDER BY 1`,
  );
  return rows.map((row) => row.underlying);
}

/**
 * Shares owed by hedges per underlying and not yet at the broker (buys positive, sells negative): every obligation,
 * less what orders filled, less what orders under review left unfilled (those are no longer in flight).
 */
export async function hedgesInFlight(db: Queryable): Promise<Map<string, { inFlight: string; review: string }>> {
  const { rows } = await db.query<{ underlying: string; owed: string; filled: string; review: string }>(
    `WITH owed AS (
       SELECT underlying, sum(CASE WHEN side = 'buy' THEN shares ELSE -shares END) AS owed FROM hedge_obligations GROUP BY underlying
     ), done AS (
       SELECT underlying, sum(CASE WHEN side = 'buy' THEN filled_qty ELSE -filled_qty END) AS filled,
              sum(CASE WHEN state = 'review' THEN (CASE WHEN side = 'buy' THEN qty - filled_qty ELSE filled_qty - qty END) ELSE 0 END) AS review
         FROM hedge_orders GROUP BY underlying
     )
     SELECT o.underlying, o.owed::text, COALESCE(d.filled, 0)::text AS filled, COALESCE(d.review, 0)::text AS review
       FROM owed o LEFT JOIN done d USING (underlying)`,
  );
  return new Map(
    rows.map((row) => [row.underlying, { inFlight: new Decimal(row.owed).minus(row.filled).minus(row.review).toFixed(), review: new Decimal(row.review).toFixed() }]),
  );
}

export interface HedgeTradeView {
  chain: string;
  txHash: string;
  logIndex: number;
  attestationId: string;
  symbol: string;
  underlying: string;
  side: HedgeSide;
  tokens: string;
  sharesMultiplier: string;
  shares: string;
  attestedSharePrice: string;
  batchId: string | null;
  orderState: string | null;
  clientOrderId: string | null;
  fillPrice: string | null;
  /** What the issuer lost (positive) or gained per share against the attested price, in basis points of it. */
  slippageBps: string | null;
  owedAt: number;
  filledAt: number | null;
}

/** Hedged trades, newest first: each obligation with its order's fill price and the slippage against its attested price. */
export async function listHedgeTrades(db: Queryable, filter: { underlying?: string; limit: number }): Promise<HedgeTradeView[]> {
  const { rows } = await db.query<HedgeTradeView>(
    `SELECT h.chain, h.tx_hash AS "txHash", h.log_index AS "logIndex", h.attestation_id::text AS "attestationId", h.symbol, h.underlying, h.side,
            trim_scale(h.tokens)::text AS tokens, trim_scale(h.shares_multiplier)::text AS "sharesMultiplier", trim_scale(h.shares)::text AS shares,
            trim_scale(round(h.attested_share_price, 9))::text AS "attestedSharePrice", h.batch_id AS "batchId", o.state AS "orderState",
            o.client_order_id AS "clientOrderId", trim_scale(o.filled_avg_price)::text AS "fillPrice",
            CASE WHEN o.filled_avg_price IS NULL THEN NULL ELSE
              trim_scale(round((CASE WHEN h.side = 'buy' THEN o.filled_avg_price - h.attested_share_price ELSE h.attested_share_price - o.filled_avg_price END)
                / h.attested_share_price * 10000, 4))::text END AS "slippageBps",
            (extract(epoch FROM h.owed_at) * 1000)::float8 AS "owedAt",
            (extract(epoch FROM o.filled_at) * 1000)::float8 AS "filledAt"
       FROM hedge_obligations h LEFT JOIN hedge_orders o ON o.batch_id = h.batch_id AND o.side = h.side
      WHERE $1::text IS NULL OR h.underlying = $1
      ORDER BY h.owed_at DESC, h.tx_hash, h.log_index LIMIT $2`,
    [filter.underlying ?? null, filter.limit],
  );
  return rows;
}

/** Orders under review (rejected for good), with the broker's reason. */
export async function listHedgeOrders(db: Queryable, filter: { state?: string; limit: number }): Promise<(HedgeOrderRecord & { createdAt: number; filledAt: number | null })[]> {
  const { rows } = await db.query<HedgeOrderRecord & { createdAt: number; filledAt: number | null }>(
    `SELECT ${ORDER_COLUMNS}, (extract(epoch FROM created_at) * 1000)::float8 AS "createdAt", (extract(epoch FROM filled_at) * 1000)::float8 AS "filledAt"
       FROM hedge_orders WHERE $1::text IS NULL OR state = $1 ORDER BY created_at DESC LIMIT $2`,
    [filter.state ?? null, filter.limit],
  );
  return rows;
}

/** Hedge orders by state (`pending`: placed or waiting to be; `review`: refused for good, waiting for an operator). */
export async function countHedgeOrdersByState(db: Queryable): Promise<{ state: string; count: number }[]> {
  const { rows } = await db.query<{ state: string; count: number }>(`SELECT state, count(*)::int AS count FROM hedge_orders GROUP BY state ORDER BY state`);
  return rows;
}
