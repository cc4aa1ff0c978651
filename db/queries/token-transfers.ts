/**
 * The token Transfer logs a chain watcher saw, and the balances they add up to. Each log is recorded once, `seen` or
 * `final`; `promoteFinal` and `rewindChain` (chain-observations.ts) move it on with the watcher's other logs.
 */
import type { Queryable } from '../pool';
import type { LogLocation } from './chain-observations';

/** One Transfer log of one of the product's tokens, addresses lower-case, `amount` in base units. */
export interface ObservedTransfer extends LogLocation {
  token: `0x${string}`;
  sender: `0x${string}`;
  recipient: `0x${string}`;
  amount: string;
  /** At or below the final block when scanned. */
  final: boolean;
}

/**
 * Records scanned Transfer logs. A log already recorded changes nothing; an orphaned one seen again (its block is
 * canonical again) is live again. Answers how many were new or revived.
 */
export async function recordObservedTransfers(db: Queryable, chain: string, transfers: ObservedTransfer[]): Promise<number> {
  if (transfers.length === 0) return 0;
  const { rows } = await db.query<{ recorded: number }>(
    `WITH recorded AS (
       INSERT INTO token_transfers (chain, block_hash, tx_hash, log_index, block_number, token, sender, recipient, amount, status)
       SELECT $1, "blockHash", "txHash", "logIndex", "blockNumber", token, sender, recipient, amount, CASE WHEN final THEN 'final' ELSE 'seen' END
         FROM jsonb_to_recordset($2::jsonb) AS t("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text, token text, sender text,
              recipient text, amount numeric, final boolean)
       ON CONFLICT (chain, block_hash, tx_hash, log_index) DO UPDATE SET status = EXCLUDED.status, status_changed_at = now()
        WHERE token_transfers.status = 'orphaned'
       RETURNING 1
     )
     SELECT count(*)::int AS recorded FROM recorded`,
    [chain, JSON.stringify(transfers)],
  );
  return rows[0]!.recorded;
}

/** One holder's balance of one token, in base units. */
export interface TokenBalanceRecord {
  token: string;
  holder: string;
  balance: string;
}

/**
 * The balances the live (seen and final) Transfer logs of a chain add up to, by token then holder, leaving out the
 * zero address and holders with nothing; optionally of one token (lower-case address) or one holder.
 */
export async function listTokenBalances(db: Queryable, chain: string, filter: { token?: string; holder?: string } = {}): Promise<TokenBalanceRecord[]> {
  const { rows } = await db.query<TokenBalanceRecord>(
    `WITH live AS (
       SELECT token, sender, recipient, amount FROM token_transfers
        WHERE chain = $1 AND status <> 'orphaned' AND ($2::text IS NULL OR token = $2) AND ($3::text IS NULL OR sender = $3 OR recipient = $3)
     ), moves AS (
       SELECT token, recipient AS holder, amount FROM live
       UNION ALL
       SELECT token, sender, -amount FROM live
     )
     SELECT token, holder, sum(amount)::text AS balance FROM moves
      WHERE holder <> '0x0000000000000000000000000000000000000000' AND ($3::text IS NULL OR holder = $3)
      GROUP BY token, holder HAVING sum(amount) <> 0
      ORDER BY token, holder`,
    [chain, filter.token ?? null, filter.holder ?? null],
  );
  return rows;
}
