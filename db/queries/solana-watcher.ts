/**
 * What the Solana chain watcher keeps of its own in SQL, beside the EVM watchers' cursor columns (chain-watcher.ts):
 * the newest issuer signature it handled (the `until` of its next read), the attestations its memos name, and the
 * executions it recorded `seen` that it must find finalized before it makes them final. What it records of an
 * execution goes through chain-observations.ts, as the EVM watchers' logs do.
 */
import type { Queryable } from '../pool';

/** Creates the chain's cursor on the first scan (Solana has no deployment that would). */
export async function ensureSolanaCursor(db: Queryable, chain: string): Promise<void> {
  await db.query(`INSERT INTO chain_cursors (chain, next_block) VALUES ($1, 0) ON CONFLICT (chain) DO NOTHING`, [chain]);
}

/** The newest issuer signature the watcher handled (null before its first read); with `lock`, held until the transaction ends. */
export async function readLastSignature(db: Queryable, chain: string, options: { lock?: boolean } = {}): Promise<string | null> {
  const { rows } = await db.query<{ lastSignature: string | null }>(
    `SELECT last_signature AS "lastSignature" FROM chain_cursors WHERE chain = $1${options.lock ? ' FOR UPDATE' : ''}`,
    [chain],
  );
  return rows[0]?.lastSignature ?? null;
}

export async function recordLastSignature(db: Queryable, chain: string, signature: string | null): Promise<void> {
  await db.query(`UPDATE chain_cursors SET last_signature = $2 WHERE chain = $1`, [chain, signature]);
}

/** A Solana attestation as the watcher compares a transaction with it. */
export interface SolanaWatchedAttestation {
  attestationId: string;
  userId: string;
  side: 'buy' | 'sell';
  /** Decimal strings, as stored. */
  tokenAmount: string;
  price: string;
  /** The stock mint it was issued for. */
  assetAddress: string;
  /** The partially signed wire transaction (base64) the issuer signed for it. */
  additionalData: string;
}

/** The attestations of `chain` among `ids` (ids that are not ours are left out). */
export async function solanaAttestations(db: Queryable, chain: string, ids: string[]): Promise<Map<string, SolanaWatchedAttestation>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<SolanaWatchedAttestation>(
    `SELECT attestation_id::text AS "attestationId", user_id AS "userId", side, token_amount::text AS "tokenAmount", price::text AS price,
            asset_address AS "assetAddress", additional_data AS "additionalData"
       FROM attestations WHERE chain = $1 AND attestation_id = ANY($2::numeric[])`,
    [chain, ids],
  );
  return new Map(rows.map((row) => [row.attestationId, row]));
}

/** The executions recorded `seen` at or below `slot`: those the watcher checks are finalized before it makes them final. */
export async function seenExecutionsAtOrBelow(db: Queryable, chain: string, slot: number): Promise<{ txHash: string; blockNumber: number; blockHash: string }[]> {
  const { rows } = await db.query<{ txHash: string; blockNumber: number; blockHash: string }>(
    `SELECT tx_hash AS "txHash", block_number::float8 AS "blockNumber", block_hash AS "blockHash" FROM trade_executions
      WHERE chain = $1 AND status = 'seen' AND block_number <= $2 ORDER BY block_number`,
    [chain, slot],
  );
  return rows;
}

/**
 * Per asset, the tokens (18 decimals, buys positive, sells negative) of the executions recorded `seen` at or below
 * `slot`: in a supply read at that slot, but owing no hedge yet (the watcher makes them final after it).
 */
export async function unfinalTokensAtOrBelow(db: Queryable, chain: string, slot: number): Promise<Map<string, string>> {
  const { rows } = await db.query<{ symbol: string; quantity: string }>(
    `SELECT a.symbol, sum(CASE WHEN x.side = 'buy' THEN x.quantity ELSE -x.quantity END)::text AS quantity
       FROM trade_executions x JOIN attestations a ON a.attestation_id = x.attestation_id AND a.chain = x.chain
      WHERE x.chain = $1 AND x.status = 'seen' AND x.block_number <= $2
      GROUP BY a.symbol`,
    [chain, slot],
  );
  return new Map(rows.map((row) => [row.symbol, row.quantity]));
}
