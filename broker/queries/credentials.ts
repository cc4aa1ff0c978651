/**
 * Basic-auth credentials of the sandbox: a key and the SHA-256 of its secret (secrets are random, so a fast hash
 * suffices, as for the product's API keys), with the role it acts in.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';

export type CredentialRole = 'participant' | 'issuer';

export interface Credential {
  key: string;
  secret: string;
}

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Stores (or re-keys) a credential; its secret is kept only as a hash. */
export async function storeCredential(db: Pick<Pool, 'query'>, credential: Credential, role: CredentialRole): Promise<void> {
  await db.query(
    `INSERT INTO broker.credentials (key, secret_sha256, role) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET secret_sha256 = EXCLUDED.secret_sha256, role = EXCLUDED.role, updated_at = now()`,
    [credential.key, sha256(credential.secret), role],
  );
}

/** The role of the credential whose key and secret both match, or undefined. */
export async function verifyCredential(db: Pick<Pool, 'query'>, key: string, secret: string): Promise<CredentialRole | undefined> {
  const { rows } = await db.query<{ secret_sha256: Buffer; role: CredentialRole }>(
    'SELECT secret_sha256, role FROM broker.credentials WHERE key = $1',
    [key],
  );
  const row = rows[0];
  const offered = sha256(secret);
  // Compare even for an unknown key, so the answer takes the same time either way.
  const expected = row?.secret_sha256 ?? Buffer.alloc(offered.length);
  const equal = expected.length === offered.length && timingSafeEqual(expected, offered);
  return row && equal ? row.role : undefined;
}
