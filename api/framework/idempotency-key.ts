/**
 * The `Idempotency-Key` request header of the operations that create something (an attestation, a webhook
 * endpoint): how it is documented, and the key a request sent, refused when malformed.
 */
import type { Context } from 'koa';
import { ApiError } from '../../domain/errors';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The header's documentation: a retry with the same key and body answers `what` the first request created. */
export function idempotencyKeyHeader(what: string): Record<'Idempotency-Key', string> {
  return {
    'Idempotency-Key': `Optional, 1–255 printable ASCII characters (an empty or blank value is refused): a retry with the same key and body answers ${what} (with \`Idempotent-Replayed: true\`); the same key with another body is refused.`,
  };
}

/** The key the request sent, or undefined without one; a malformed key is 400 INVALID_IDEMPOTENCY_KEY. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  // A header sent empty or blank (Node trims it to '') is a malformed key, not the absence of one.
  const key = ctx.headers['idempotency-key'];
  if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key))) {
    throw new ApiError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters; leave the header out to send no key');
  }
  return key;
}
