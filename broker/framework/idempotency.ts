/**
 * `Idempotency-Key` for the sandbox's writes. The key is claimed by inserting its row in the same transaction as
 * the write itself, so a concurrent duplicate waits on the first and then answers the first's stored response
 * (`Idempotent-Replayed: true`); the same key with another body is 422 IDEMPOTENCY_KEY_REUSED. A write that fails
 * rolls back with its key, leaving nothing behind.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../../db/pool';
import { BrokerError } from '../errors';
import { claimIdempotencyKey, findIdempotentResponse, storeIdempotentResponse } from '../queries/idempotent-responses';

const KEY = /^[\x21-\x7e][\x20-\x7e]{0,127}$/;

/** The `Idempotency-Key` header, if sent; 400 when malformed, empty or blank (Node trims a blank value to ''). */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const value = ctx.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !KEY.test(value)) throw new BrokerError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1–128 printable ASCII characters');
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

/**
 * Runs `write` in a transaction, under the idempotency key when there is one: a key already claimed answers the
 * response stored under it (once its first request committed), or 422 when it was claimed for another body.
 */
export async function idempotentWrite(
  db: Pool,
  idempotency: { scope: string; key: string | undefined; fingerprint: string },
  write: (client: PoolClient) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const { scope, key, fingerprint } = idempotency;
  return await inTransaction(db, async (client) => {
    if (key !== undefined && !(await claimIdempotencyKey(client, scope, key, fingerprint))) {
      const stored = (await findIdempotentResponse(client, scope, key))!;
      if (stored.fingerprint !== fingerprint) throw new BrokerError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with another request body');
      return { status: stored.status, body: stored.body, replayed: true };
    }
    const response = await write(client);
    if (key !== undefined) await storeIdempotentResponse(client, scope, key, response);
    return { ...response, replayed: false };
  });
}

/** Answers a stored or fresh response, marking a replay. */
export function respond(ctx: Context, response: StoredResponse): void {
  ctx.status = response.status;
  ctx.body = response.body;
  if (response.replayed) ctx.set('Idempotent-Replayed', 'true');
}
