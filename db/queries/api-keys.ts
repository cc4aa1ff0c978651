/**
 * API keys: stored as SHA-256 hashes with a scope, an optional per-key rate limit, and the account
 * they act for (write and admin keys create attestations for their account's user).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../pool';
import { createAccount } from './accounts';

/** `partner`: the key the issuer gives the brokerage partner, for the partner routes (read-only elsewhere). */
export type KeyScope = 'read' | 'write' | 'admin' | 'partner';

export interface ApiKey {
  id: string;
  name: string;
  scope: KeyScope;
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
  createdAt: Date;
  revokedAt: Date | null;
  accountId: string | null;
  /** The account's bytes32 user id. */
  userId: `0x${string}` | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  scope: KeyScope;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
  created_at: Date;
  revoked_at: Date | null;
  account_id: string | null;
  user_id: `0x${string}` | null;
}

const COLUMNS = `k.id, k.name, k.scope, k.rate_limit_per_second, k.rate_limit_burst, k.created_at, k.revoked_at, k.account_id,
  (SELECT user_id FROM accounts a WHERE a.id = k.account_id) AS user_id`;

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    rateLimitPerSecond: row.rate_limit_per_second,
    rateLimitBurst: row.rate_limit_burst,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    accountId: row.account_id,
    userId: row.user_id,
  };
}

export function hashApiKey(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export interface CreateApiKeyParameters {
  name: string;
  scope: KeyScope;
  rateLimitPerSecond?: number;
  rateLimitBurst?: number;
  /** The account the key acts for; write and admin keys without one get a new account named after the key. */
  accountId?: string;
  /** A development key (npm start's, the sandbox's): one a database holding other keys refuses to be given. */
  development?: boolean;
}

/** Creates a key and returns it with its secret, which is shown once and never stored. */
export async function createApiKey(db: Queryable, parameters: CreateApiKeyParameters): Promise<{ key: ApiKey; secret: string }> {
  const id = `key_${randomBytes(6).toString('hex')}`;
  const secret = `isk_${parameters.scope}_${randomBytes(24).toString('base64url')}`;
  const accountId =
    parameters.accountId ?? (parameters.scope === 'read' || parameters.scope === 'partner' ? null : (await createAccount(db, parameters.name)).id);
  await db.query(
    `INSERT INTO api_keys (id, name, scope, key_hash, rate_limit_per_second, rate_limit_burst, account_id, development)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      parameters.name,
      parameters.scope,
      hashApiKey(secret),
      parameters.rateLimitPerSecond ?? null,
      parameters.rateLimitBurst ?? null,
      accountId,
      parameters.development ?? false,
    ],
  );
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys k WHERE k.id = $1`, [id]);
  return { key: toApiKey(rows[0]!), secret };
}

/** The active (not revoked) key whose secret this is. */
export async function findActiveApiKey(db: Queryable, secret: string): Promise<ApiKey | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys k WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, [
    hashApiKey(secret),
  ]);
  return rows[0] && toApiKey(rows[0]);
}

/** The active key with this id. */
export async function findApiKeyById(db: Queryable, id: string): Promise<ApiKey | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys k WHERE k.id = $1 AND k.revoked_at IS NULL`, [id]);
  return rows[0] && toApiKey(rows[0]);
}

/** Revokes a key; returns false when no active key has this id. Revoking twice is harmless. */
export async function revokeApiKey(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return rowCount === 1;
}

export async function listApiKeys(db: Queryable): Promise<ApiKey[]> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys k ORDER BY k.created_at`);
  return rows.map(toApiKey);
}

/** How many active keys are not development keys (a database in real use holds some). */
export async function countActiveNonDevelopmentKeys(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM api_keys WHERE NOT development AND revoked_at IS NULL`);
  return rows[0]!.count;
}
