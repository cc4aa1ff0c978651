/**
 * `Idempotency-Key` for the sandbox's writes. The key is claimed by inserting its row in the same transaction as
 * the write itself, so a concurrent duplicate waits on the first and then answers the first's stored response
 * (`Idempotent-Replayed: true`); the same key with another body is 422 IDEMPOTENCY_KEY_REUSED. A write that fails
 * rolls back with its key, leaving nothing behind.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Pool, PoolClient } from 'pg';
import { BrokerError } from '../errors';

const KEY = /^[\x21-\x7e][\x20-\x7e]{0,127}$/;

/** The `Idempotency-Key` header, if sent; 400 when malformed. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const value = ctx.get('idempotency-key');
  if (value === '') return undefined;
  if (!KEY.test(value)) throw new BrokerError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1–128 printable ASCII characters');
  return value;
}

/** Canonical JSON (sorted keys), so the same body under another key order is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestFingerprint(path: string, body: unknown): string {
  return createHash('sha256').update(`${path}\n${canonical(body)}`).digest('hex');
}

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** Runs `write` in a transaction, under the idempotency key when there is one. */
export async function idempotentWrite(
  db: Pool,
  idempotency: { scope: string; key: string | undefined; fingerprint: string },
  write: (client: PoolClient) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    if (idempotency.key !== undefined) {
      const claimed = await client.query(
        `INSERT INTO broker.idempotent_responses (scope, idempotency_key, request_sha256) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
        [idempotency.scope, idempotency.key, idempotency.fingerprint],
      );
      if (claimed.rowCount === 0) {
        const { rows } = await client.query<{ request_sha256: string; status: number; body: unknown }>(
          'SELECT request_sha256, status, body FROM broker.idempotent_responses WHERE scope = $1 AND idempotency_key = $2',
          [idempotency.scope, idempotency.key],
        );
        await client.query('COMMIT');
        const stored = rows[0]!;
        if (stored.request_sha256 !== idempotency.fingerprint) {
          throw new BrokerError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request body');
        }
        return { status: stored.status, body: stored.body, replayed: true };
      }
    }
    const response = await write(client);
    if (idempotency.key !== undefined) {
      await client.query('UPDATE broker.idempotent_responses SET status = $3, body = $4 WHERE scope = $1 AND idempotency_key = $2', [
        idempotency.scope,
        idempotency.key,
        response.status,
        JSON.stringify(response.body),
      ]);
    }
    await client.query('COMMIT');
    return { ...response, replayed: false };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Answers a stored or fresh response, marking a replay. */
export function respond(ctx: Context, response: StoredResponse): void {
  ctx.status = response.status;
  ctx.body = response.body;
  if (response.replayed) ctx.set('Idempotent-Replayed', 'true');
}
