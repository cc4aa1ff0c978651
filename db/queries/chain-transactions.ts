/**
 * Transactions the issuer signs, kept under the key of the step that needs them: stored before broadcast, so a
 * retried step finds its transaction and re-sends the same bytes instead of signing a second one.
 */
import type { Queryable } from '../pool';

export type ChainTransactionState = 'signed' | 'confirmed' | 'reverted';

export interface ChainTransactionRecord {
  key: string;
  chain: string;
  sender: string;
  nonce: number;
  txHash: `0x${string}`;
  raw: `0x${string}`;
  state: ChainTransactionState;
  blockNumber: number | null;
}

const COLUMNS = `key, chain, sender, nonce, tx_hash AS "txHash", raw, state, block_number AS "blockNumber"`;

export async function findChainTransaction(db: Queryable, key: string): Promise<ChainTransactionRecord | undefined> {
  const { rows } = await db.query<ChainTransactionRecord>(`SELECT ${COLUMNS} FROM chain_transactions WHERE key = $1`, [key]);
  return rows[0];
}

/** Serialises nonce allocation of one sender on one chain until the transaction ends. */
export async function lockSenderNonces(db: Queryable, chain: string, sender: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chain-tx:${chain}:${sender}`]);
}

/** The next nonce this table knows of for a sender on a chain (0 when it has sent nothing). */
export async function nextStoredNonce(db: Queryable, chain: string, sender: string): Promise<number> {
  const { rows } = await db.query<{ next: number }>(
    `SELECT COALESCE(MAX(nonce) + 1, 0)::bigint AS next FROM chain_transactions WHERE chain = $1 AND sender = $2`,
    [chain, sender],
  );
  return rows[0]!.next;
}

export async function insertChainTransaction(db: Queryable, record: Omit<ChainTransactionRecord, 'state' | 'blockNumber'>): Promise<void> {
  await db.query(`INSERT INTO chain_transactions (key, chain, sender, nonce, tx_hash, raw) VALUES ($1, $2, $3, $4, $5, $6)`, [
    record.key,
    record.chain,
    record.sender,
    record.nonce,
    record.txHash,
    record.raw,
  ]);
}

export async function recordChainTransactionOutcome(
  db: Queryable,
  key: string,
  outcome: { state: Exclude<ChainTransactionState, 'signed'>; blockNumber: number; blockHash: string },
): Promise<void> {
  await db.query(`UPDATE chain_transactions SET state = $2, block_number = $3, block_hash = $4, updated_at = now() WHERE key = $1`, [
    key,
    outcome.state,
    outcome.blockNumber,
    outcome.blockHash,
  ]);
}

/** The issuer's own chain transactions per chain and state (`signed`: sent, not yet mined). */
export async function countChainTransactionsByState(db: Queryable): Promise<{ chain: string; state: string; count: number }[]> {
  const { rows } = await db.query<{ chain: string; state: string; count: number }>(
    `SELECT chain, state, count(*)::int AS count FROM chain_transactions GROUP BY chain, state`,
  );
  return rows;
}
