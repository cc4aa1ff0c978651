/** API keys: stored as SHA-256 hashes with a scope and an optional per-key rate limit. */
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../pool';

export type KeyScope = 'read' | 'write' | 'admin';

export interface ApiKey {
  id: string;
  name: string;
  scope: KeyScope;
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
  createdAt: Date;
  revokedAt: Date | null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  scope: KeyScope;
  rate_limit_per_second: number | null;
  rate_limit_burst: number | null;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, scope, rate_limit_per_second, rate_limit_burst, created_at, revoked_at';

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    rateLimitPerSecond: row.rate_limit_per_second,
    rateLimitBurst: row.rate_limit_burst,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
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
}

/** Creates a key and returns it with its secret, which is shown once and never stored. */
export async function createApiKey(db: Database, parameters: CreateApiKeyParameters): Promise<{ key: ApiKey; secret: string }> {
  const id = `key_${randomBytes(6).toString('hex')}`;
  const secret = `isk_${parameters.scope}_${randomBytes(24).toString('base64url')}`;
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, name, scope, key_hash, rate_limit_per_second, rate_limit_burst)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [id, parameters.name, parameters.scope, hashApiKey(secret), parameters.rateLimitPerSecond ?? null, parameters.rateLimitBurst ?? null],
  );
  return { key: toApiKey(rows[0]!), secret };
}

/** The active (not revoked) key whose secret this is. */
export async function findActiveApiKey(db: Database, secret: string): Promise<ApiKey | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL`, [
    hashApiKey(secret),
  ]);
  return rows[0] && toApiKey(rows[0]);
}

/** Revokes a key; returns false when no active key has this id. Revoking twice is harmless. */
export async function revokeApiKey(db: Database, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
  return rowCount === 1;
}

export async function listApiKeys(db: Database): Promise<ApiKey[]> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at`);
  return rows.map(toApiKey);
}
