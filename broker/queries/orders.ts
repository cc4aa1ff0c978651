/**
 * Orders of the sandbox's trading side (`broker.orders`) and the cash they move (`broker.cash`). An order is stored
 * `new` with its fill due after the latency; `fillDueOrder` fills it (or part of it) inside the caller's transaction,
 * journalling the shares (broker/queries/journal.ts) and moving the cash, both of which never go negative.
 */
import type { PoolClient } from 'pg';
import type { Queryable } from '../../db/pool';
import { Decimal, Rounding } from '../../domain/money';
import { moveShares } from './journal';

export type OrderSide = 'buy' | 'sell';
export type OrderType = 'market' | 'limit';
export type OrderStatus = 'new' | 'partially_filled' | 'filled' | 'canceled' | 'rejected';

export interface OrderRecord {
  orderId: string;
  accountId: string;
  clientOrderId: string;
  symbol: string;
  qty: string;
  side: OrderSide;
  type: OrderType;
  limitPrice: string | null;
  timeInForce: 'day';
  status: OrderStatus;
  filledQty: string;
  filledAvgPrice: string | null;
  reason: string | null;
  submittedAt: Date;
  filledAt: Date | null;
  fillDueAt: Date;
  expiresAt: Date;
}

/** An order as the trading interface answers it (decimal strings, ISO-8601 times). */
export interface OrderView {
  id: string;
  client_order_id: string;
  symbol: string;
  qty: string;
  side: OrderSide;
  type: OrderType;
  limit_price: string | null;
  time_in_force: 'day';
  status: OrderStatus;
  filled_qty: string;
  filled_avg_price: string | null;
  reason: string | null;
  submitted_at: string;
  filled_at: string | null;
}

export function orderView(order: OrderRecord): OrderView {
  return {
    id: order.orderId,
    client_order_id: order.clientOrderId,
    symbol: order.symbol,
    qty: new Decimal(order.qty).toFixed(),
    side: order.side,
    type: order.type,
    limit_price: order.limitPrice === null ? null : new Decimal(order.limitPrice).toFixed(),
    time_in_force: order.timeInForce,
    status: order.status,
    filled_qty: new Decimal(order.filledQty).toFixed(),
    filled_avg_price: order.filledAvgPrice === null ? null : new Decimal(order.filledAvgPrice).toFixed(),
    reason: order.reason,
    submitted_at: order.submittedAt.toISOString(),
    filled_at: order.filledAt?.toISOString() ?? null,
  };
}

const COLUMNS = `order_id AS "orderId", account_id AS "accountId", client_order_id AS "clientOrderId", symbol, qty::text, side, type,
  limit_price::text AS "limitPrice", time_in_force AS "timeInForce", status, filled_qty::text AS "filledQty",
  filled_avg_price::text AS "filledAvgPrice", reason, submitted_at AS "submittedAt", filled_at AS "filledAt", fill_due_at AS "fillDueAt",
  expires_at AS "expiresAt"`;

/** An order as placed: what the client asked for, and when it is due (epoch ms). */
export type NewOrder = Pick<OrderRecord, 'orderId' | 'accountId' | 'clientOrderId' | 'symbol' | 'qty' | 'side' | 'type' | 'limitPrice'> & {
  submittedAt: number;
  fillDueAt: number;
  expiresAt: number;
};

export async function insertOrder(db: Queryable, order: NewOrder): Promise<OrderRecord> {
  const { rows } = await db.query<OrderRecord>(
    `INSERT INTO broker.orders (order_id, account_id, client_order_id, symbol, qty, side, type, limit_price, time_in_force, status, submitted_at,
       fill_due_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'day', 'new', to_timestamp($9 / 1000.0), to_timestamp($10 / 1000.0), to_timestamp($11 / 1000.0))
     RETURNING ${COLUMNS}`,
    [order.orderId, order.accountId, order.clientOrderId, order.symbol, order.qty, order.side, order.type, order.limitPrice, order.submittedAt, order.fillDueAt, order.expiresAt],
  );
  return rows[0]!;
}

export async function findOrder(db: Queryable, accountId: string, orderId: string): Promise<OrderRecord | undefined> {
  const { rows } = await db.query<OrderRecord>(`SELECT ${COLUMNS} FROM broker.orders WHERE account_id = $1 AND order_id = $2`, [accountId, orderId]);
  return rows[0];
}

export async function findOrderByClientOrderId(db: Queryable, accountId: string, clientOrderId: string): Promise<OrderRecord | undefined> {
  const { rows } = await db.query<OrderRecord>(`SELECT ${COLUMNS} FROM broker.orders WHERE account_id = $1 AND client_order_id = $2`, [accountId, clientOrderId]);
  return rows[0];
}

/** `open`: new or partially filled; `closed`: the rest; `all`. Newest first. */
export async function listOrders(
  db: Queryable,
  filter: { accountId: string; status: 'open' | 'closed' | 'all'; symbols?: string[]; limit: number },
): Promise<OrderRecord[]> {
  const { rows } = await db.query<OrderRecord>(
    `SELECT ${COLUMNS} FROM broker.orders
      WHERE account_id = $1
        AND ($2 = 'all' OR ($2 = 'open') = (status IN ('new', 'partially_filled')))
        AND ($3::text[] IS NULL OR symbol = ANY($3::text[]))
      ORDER BY submitted_at DESC, order_id LIMIT $4`,
    [filter.accountId, filter.status, filter.symbols ?? null, filter.limit],
  );
  return rows;
}

/** The account's positions (shares only; cash is `cashOf`). */
export async function positionsOf(db: Queryable, accountId: string): Promise<{ symbol: string; qty: string }[]> {
  const { rows } = await db.query<{ symbol: string; qty: string }>(
    'SELECT symbol, qty::text FROM broker.positions WHERE account_id = $1 AND qty > 0 ORDER BY symbol',
    [accountId],
  );
  return rows.map((row) => ({ symbol: row.symbol, qty: new Decimal(row.qty).toFixed() }));
}

export async function cashOf(db: Queryable, accountId: string): Promise<string> {
  const { rows } = await db.query<{ balance: string }>('SELECT balance::text FROM broker.cash WHERE account_id = $1', [accountId]);
  return new Decimal(rows[0]?.balance ?? '0').toFixed();
}

/** Deposits what the account's cash lacks to reach `minimum` (seeding). */
export async function topUpCash(db: Queryable, accountId: string, minimum: string): Promise<void> {
  await db.query(
    `INSERT INTO broker.cash (account_id, balance) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET balance = GREATEST(broker.cash.balance, EXCLUDED.balance), updated_at = now()`,
    [accountId, minimum],
  );
}

/** The earliest time an open order is due (to sleep until), if any. */
export async function nextOrderDueAt(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ due: Date | null }>(`SELECT min(fill_due_at) AS due FROM broker.orders WHERE status IN ('new', 'partially_filled')`);
  return rows[0]?.due ?? undefined;
}

/** Open orders due by now, locked for the caller's transaction (others skip them). */
export async function lockDueOrders(client: PoolClient, now: number, limit: number): Promise<OrderRecord[]> {
  const { rows } = await client.query<OrderRecord>(
    `SELECT ${COLUMNS} FROM broker.orders WHERE status IN ('new', 'partially_filled') AND fill_due_at <= to_timestamp($1 / 1000.0)
      ORDER BY fill_due_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** Closes an open order: `canceled` (what filled stays filled) or `rejected` (nothing filled), with the reason. */
export async function closeOrder(client: Queryable, orderId: string, status: 'canceled' | 'rejected', reason: string): Promise<void> {
  await client.query(`UPDATE broker.orders SET status = $2, reason = $3, updated_at = clock_timestamp() WHERE order_id = $1`, [orderId, status, reason]);
}

export async function postponeOrder(client: Queryable, orderId: string, dueAt: number): Promise<void> {
  await client.query(`UPDATE broker.orders SET fill_due_at = to_timestamp($2 / 1000.0), updated_at = clock_timestamp() WHERE order_id = $1`, [orderId, dueAt]);
}

export type FillOutcome = { outcome: 'filled' | 'partially_filled' } | { outcome: 'insufficient'; what: string };

/**
 * Fills `qty` of a locked open order at `price` inside the caller's transaction: the shares journalled from the market
 * (buy) or to it (sell), the cash paid (rounded up to the cent) or received (rounded down), the order's filled
 * quantity and average price updated. Short of cash or shares nothing moves (`insufficient`).
 */
export async function fillOrder(client: PoolClient, order: OrderRecord, fill: { qty: string; price: string; now: number; nextDueAt: number }): Promise<FillOutcome> {
  const qty = new Decimal(fill.qty);
  const price = new Decimal(fill.price);
  const buy = order.side === 'buy';
  const amount = qty.times(price).toDecimalPlaces(2, buy ? Rounding.UP : Rounding.DOWN);
  const previousFills = await client.query<{ n: string }>('SELECT count(*) AS n FROM broker.journal WHERE order_id = $1', [order.orderId]);
  if (buy) {
    const paid = await client.query(
      `UPDATE broker.cash SET balance = balance - $2, updated_at = now() WHERE account_id = $1 AND balance >= $2 RETURNING 1`,
      [order.accountId, amount.toFixed()],
    );
    if (paid.rowCount !== 1) return { outcome: 'insufficient', what: `insufficient buying power for ${qty.toFixed()} ${order.symbol} at ${price.toFixed()}` };
  }
  const moved = await moveShares(client, {
    fromAccount: buy ? undefined : order.accountId,
    toAccount: buy ? order.accountId : undefined,
    symbol: order.symbol,
    qty: qty.toFixed(),
    reason: 'trade',
    orderId: order.orderId,
    idempotencyKey: `order:${order.orderId}:${Number(previousFills.rows[0]!.n) + 1}`,
  });
  if (moved.outcome === 'insufficient') return { outcome: 'insufficient', what: `insufficient position: ${moved.available} ${order.symbol} held` };
  if (!buy) await topUpCashBy(client, order.accountId, amount.toFixed());
  const filledBefore = new Decimal(order.filledQty);
  const filled = filledBefore.plus(qty);
  const average = filledBefore
    .times(order.filledAvgPrice ?? 0)
    .plus(qty.times(price))
    .div(filled)
    .toDecimalPlaces(9, Rounding.HALF_EVEN);
  const complete = filled.gte(order.qty);
  await client.query(
    `UPDATE broker.orders SET filled_qty = $2, filled_avg_price = $3, status = $4, filled_at = to_timestamp($5 / 1000.0),
            fill_due_at = to_timestamp($6 / 1000.0), updated_at = clock_timestamp()
      WHERE order_id = $1`,
    [order.orderId, filled.toFixed(), average.toFixed(), complete ? 'filled' : 'partially_filled', fill.now, fill.nextDueAt],
  );
  return { outcome: complete ? 'filled' : 'partially_filled' };
}

async function topUpCashBy(client: Queryable, accountId: string, amount: string): Promise<void> {
  await client.query(
    `INSERT INTO broker.cash (account_id, balance) VALUES ($1, $2)
     ON CONFLICT (account_id) DO UPDATE SET balance = broker.cash.balance + EXCLUDED.balance, updated_at = now()`,
    [accountId, amount],
  );
}
