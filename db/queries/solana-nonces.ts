/**
 * The issuer's pool of Solana durable nonce accounts (migration 018): an attestation takes a free account in the
 * transaction that stores it, and gives it back once its nonce has moved on chain (its transaction executed, or the
 * workflow advanced it at expiry) with the new value read from the chain.
 */
import type { Queryable } from '../pool';

export type NonceAccountState = 'free' | 'held' | 'advancing';

export interface NonceAccountRecord {
  address: string;
  authority: string;
  state: NonceAccountState;
  /** The value on chain when free; the value the holding attestation's transaction carries otherwise. */
  nonce: string;
  attestationId: string | null;
  heldUntil: number | null;
}

const COLUMNS = `address, authority, state, nonce, attestation_id::text AS "attestationId", held_until::float8 AS "heldUntil"`;

/** Adds accounts to the pool, free with the nonce read when they were created; an account already there is left as it is. */
export async function addNonceAccounts(db: Queryable, accounts: ReadonlyArray<{ address: string; authority: string; nonce: string }>): Promise<number> {
  if (accounts.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO solana_nonce_accounts (address, authority, nonce)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (address) DO NOTHING`,
    [accounts.map((account) => account.address), accounts.map((account) => account.authority), accounts.map((account) => account.nonce)],
  );
  return rowCount ?? 0;
}

/**
 * Takes the least recently used free account for an attestation, in the caller's transaction: an attestation that is
 * not stored in the end holds nothing. Concurrent takers skip each other's locked rows, so none waits and no account
 * is taken twice. Undefined when every account is held or advancing.
 */
export async function holdNonceAccount(db: Queryable, hold: { attestationId: string; heldUntil: number }): Promise<NonceAccountRecord | undefined> {
  const { rows } = await db.query<NonceAccountRecord>(
    `UPDATE solana_nonce_accounts SET state = 'held', attestation_id = $1, held_until = $2, changed_at = now()
      WHERE address = (SELECT address FROM solana_nonce_accounts WHERE state = 'free'
                        ORDER BY changed_at, address LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [hold.attestationId, hold.heldUntil],
  );
  return rows[0];
}

/** The account an attestation holds (held or advancing), if any. */
export async function findHeldNonceAccount(db: Queryable, attestationId: string): Promise<NonceAccountRecord | undefined> {
  const { rows } = await db.query<NonceAccountRecord>(`SELECT ${COLUMNS} FROM solana_nonce_accounts WHERE attestation_id = $1`, [attestationId]);
  return rows[0];
}

/** Marks the attestation's account as being advanced (from held; again is a no-op) and answers it; undefined if it holds none. */
export async function markNonceAdvancing(db: Queryable, attestationId: string): Promise<NonceAccountRecord | undefined> {
  const { rows } = await db.query<NonceAccountRecord>(
    `UPDATE solana_nonce_accounts SET state = 'advancing', changed_at = CASE WHEN state = 'held' THEN now() ELSE changed_at END
      WHERE attestation_id = $1 RETURNING ${COLUMNS}`,
    [attestationId],
  );
  return rows[0];
}

/**
 * Frees the attestation's account with the value now on chain. Refused (false) when that value is the one the
 * attestation's transaction carries, which could still land, or when the attestation holds no account any more.
 */
export async function releaseNonceAccount(db: Queryable, release: { attestationId: string; address: string; nonce: string }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE solana_nonce_accounts SET state = 'free', nonce = $3, attestation_id = NULL, held_until = NULL, changed_at = now()
      WHERE attestation_id = $1 AND address = $2 AND nonce <> $3`,
    [release.attestationId, release.address, release.nonce],
  );
  return rowCount === 1;
}

/**
 * Gives back the account of an attestation that was not stored after all (refused by the off-hours caps once its
 * hold had committed): its transaction was never answered to anyone, so the account is free with the value it had.
 */
export async function returnUnstoredHold(db: Queryable, attestationId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE solana_nonce_accounts SET state = 'free', attestation_id = NULL, held_until = NULL, changed_at = now()
      WHERE attestation_id = $1 AND state = 'held'
        AND NOT EXISTS (SELECT 1 FROM attestations a WHERE a.attestation_id = $1::numeric)`,
    [attestationId],
  );
  return rowCount === 1;
}

/** How many accounts are in each state: what the refill and the metrics read. */
export async function countNonceAccounts(db: Queryable): Promise<Record<NonceAccountState, number>> {
  const { rows } = await db.query<{ state: NonceAccountState; count: number }>(
    `SELECT state, count(*)::int AS count FROM solana_nonce_accounts GROUP BY state`,
  );
  const counts: Record<NonceAccountState, number> = { free: 0, held: 0, advancing: 0 };
  for (const row of rows) counts[row.state] = row.count;
  return counts;
}

/** The earliest expiry (epoch ms) of an attestation holding an account: when the pool frees one at the soonest. */
export async function earliestNonceExpiry(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ heldUntil: number | null }>(`SELECT min(held_until)::float8 AS "heldUntil" FROM solana_nonce_accounts WHERE state = 'held'`);
  return rows[0]?.heldUntil ?? undefined;
}

/** Every account's address: the pool's refill finds the derived indexes not registered yet. */
export async function listNonceAccountAddresses(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query<{ address: string }>(`SELECT address FROM solana_nonce_accounts`);
  return new Set(rows.map((row) => row.address));
}

/**
 * Accounts held or being advanced for an attestation that expired before `expiredBefore` (epoch ms), oldest first:
 * what the pool's sweep advances and frees when the attestation's own workflow did not (a worker died midway, a
 * workflow ended by an operator).
 */
export async function listStuckNonceAccounts(db: Queryable, stuck: { expiredBefore: number; limit: number }): Promise<NonceAccountRecord[]> {
  const { rows } = await db.query<NonceAccountRecord>(
    `SELECT ${COLUMNS} FROM solana_nonce_accounts WHERE state <> 'free' AND held_until < $1 ORDER BY held_until, address LIMIT $2`,
    [stuck.expiredBefore, stuck.limit],
  );
  return rows;
}
