/**
 * The journal of share movements and the positions it moves. A movement is written once per idempotency key,
 * and only when the source position covers it: both position rows are locked (in a fixed order, so opposite
 * movements cannot deadlock) in the caller's transaction, and `positions.qty >= 0` is a CHECK constraint besides.
 */
import type { PoolClient } from 'pg';
import { Decimal } from '../../domain/money';

export type JournalReason = 'deposit' | 'mint' | 'redeem' | 'trade';

export interface Movement {
  /** undefined: shares deposited into the sandbox from outside (or bought in the market). */
  fromAccount?: string;
  /** undefined: shares leaving the sandbox (sold in the market). */
  toAccount?: string;
  symbol: string;
  qty: string;
  reason: JournalReason;
  tokenizationRequestId?: string;
  /** The order whose fill moved them (reason `trade`). */
  orderId?: string;
  idempotencyKey: string;
}

export type MovementOutcome = { outcome: 'moved'; journalId: number } | { outcome: 'duplicate'; journalId: number } | { outcome: 'insufficient'; available: string };

/** Moves shares inside the caller's open transaction (`client` has run BEGIN). */
export async function moveShares(client: PoolClient, movement: Movement): Promise<MovementOutcome> {
  const accounts = [movement.fromAccount, movement.toAccount].filter((id): id is string => id !== undefined);
  await client.query(
    `INSERT INTO broker.positions (account_id, symbol, qty) SELECT unnest($1::uuid[]), $2, 0 ON CONFLICT DO NOTHING`,
    [accounts, movement.symbol],
  );
  const { rows: locked } = await client.query<{ account_id: string; qty: string }>(
    `SELECT account_id, qty FROM broker.positions WHERE account_id = ANY($1::uuid[]) AND symbol = $2 ORDER BY account_id FOR UPDATE`,
    [accounts, movement.symbol],
  );
  const { rows: existing } = await client.query<{ journal_id: number }>(
    'SELECT journal_id FROM broker.journal WHERE idempotency_key = $1',
    [movement.idempotencyKey],
  );
  if (existing[0]) return { outcome: 'duplicate', journalId: Number(existing[0].journal_id) };
  if (movement.fromAccount !== undefined) {
    const available = locked.find((row) => row.account_id === movement.fromAccount)?.qty ?? '0';
    if (new Decimal(available).lt(movement.qty)) return { outcome: 'insufficient', available: new Decimal(available).toFixed() };
    await client.query('UPDATE broker.positions SET qty = qty - $3, updated_at = now() WHERE account_id = $1 AND symbol = $2', [
      movement.fromAccount,
      movement.symbol,
      movement.qty,
    ]);
  }
  if (movement.toAccount !== undefined) {
    await client.query('UPDATE broker.positions SET qty = qty + $3, updated_at = now() WHERE account_id = $1 AND symbol = $2', [
      movement.toAccount,
      movement.symbol,
      movement.qty,
    ]);
  }
  const { rows } = await client.query<{ journal_id: string }>(
    `INSERT INTO broker.journal (from_account, to_account, symbol, qty, reason, tokenization_request_id, order_id, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING journal_id`,
    [
      movement.fromAccount ?? null,
      movement.toAccount ?? null,
      movement.symbol,
      movement.qty,
      movement.reason,
      movement.tokenizationRequestId ?? null,
      movement.orderId ?? null,
      movement.idempotencyKey,
    ],
  );
  return { outcome: 'moved', journalId: Number(rows[0]!.journal_id) };
}

/**
 * Deposits into an account what its position of `symbol` lacks to reach `minimum` (nothing when it holds that much),
 * as one more `deposit` journal row, under the position's lock; with `firstDepositOnly`, only when the account never
 * had a deposit of `symbol` (a fresh sandbox).
 */
export async function topUpPosition(
  client: PoolClient,
  position: { accountId: string; symbol: string; minimum: string; firstDepositOnly?: boolean },
): Promise<void> {
  const { accountId, symbol } = position;
  const { rows } = await client.query<{ qty: string }>('SELECT qty FROM broker.positions WHERE account_id = $1 AND symbol = $2 FOR UPDATE', [accountId, symbol]);
  const held = new Decimal(rows[0]?.qty ?? '0');
  if (held.gte(position.minimum)) return;
  const { rows: count } = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM broker.journal WHERE to_account = $1 AND symbol = $2 AND reason = 'deposit'`,
    [accountId, symbol],
  );
  if (position.firstDepositOnly && Number(count[0]!.n) > 0) return;
  await moveShares(client, {
    toAccount: accountId,
    symbol,
    qty: new Decimal(position.minimum).minus(held).toFixed(),
    reason: 'deposit',
    idempotencyKey: `deposit:${accountId}:${symbol}:${Number(count[0]!.n) + 1}`,
  });
}
