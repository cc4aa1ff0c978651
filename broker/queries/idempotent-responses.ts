/**
 * Stored answers of idempotent writes (`broker.idempotent_responses`): a key is claimed in the write's own
 * transaction, then answered with the response the write gave.
 */
import type { Queryable } from '../../db/pool';

/** Claims the key for this request; false when it is already claimed (by this request or another). */
export async function claimIdempotencyKey(db: Queryable, scope: string, key: string, fingerprint: string): Promise<boolean> {
  const claimed = await db.query(
    `INSERT INTO broker.idempotent_responses (scope, idempotency_key, request_sha256) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
    [scope, key, fingerprint],
  );
  return claimed.rowCount === 1;
}

export interface IdempotentResponseRecord {
  /** The request the key was first used for (sha256 of its path and canonical body). */
  fingerprint: string;
  status: number;
  body: unknown;
}

export async function findIdempotentResponse(db: Queryable, scope: string, key: string): Promise<IdempotentResponseRecord | undefined> {
  const { rows } = await db.query<IdempotentResponseRecord>(
    'SELECT request_sha256 AS fingerprint, status, body FROM broker.idempotent_responses WHERE scope = $1 AND idempotency_key = $2',
    [scope, key],
  );
  return rows[0];
}

export async function storeIdempotentResponse(db: Queryable, scope: string, key: string, response: { status: number; body: unknown }): Promise<void> {
  await db.query('UPDATE broker.idempotent_responses SET status = $3, body = $4 WHERE scope = $1 AND idempotency_key = $2', [
    scope,
    key,
    response.status,
    JSON.stringify(response.body),
  ]);
}
