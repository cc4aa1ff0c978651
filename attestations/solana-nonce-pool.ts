/**
 * The durable nonce a Solana attestation is built on. Its transaction can land until that nonce moves, so no Solana
 * attestation is issued without one: the attestation takes a free account of the issuer's pool in the transaction
 * that stores it (db/queries/solana-nonces.ts), or is refused NONCE_POOL_EXHAUSTED (503 with Retry-After) — never
 * issued with a lifetime nobody could end. The account comes back to the pool once its nonce has moved on chain
 * (activities/solana-nonces.ts).
 */
import type { Queryable } from '../db/pool';
import { earliestNonceExpiry, holdNonceAccount } from '../db/queries/solana-nonces';
import { AttestationRefused } from './errors';

/** Bounds of the Retry-After of a refusal: at least a second, at most a minute whatever the expiries say. */
const RETRY_AFTER_SECONDS = { min: 1, max: 60 } as const;

/** The nonce account an attestation holds and the nonce value its transaction carries. */
export interface HeldNonce {
  nonceAccount: string;
  nonce: string;
}

/** Seconds until the soonest held attestation expires (and its account can be advanced and freed), bounded. */
export function retryAfterSeconds(earliestExpiry: number | undefined, now: number): number {
  const seconds = earliestExpiry === undefined ? RETRY_AFTER_SECONDS.max : Math.ceil((earliestExpiry - now) / 1000);
  return Math.min(RETRY_AFTER_SECONDS.max, Math.max(RETRY_AFTER_SECONDS.min, seconds));
}

/**
 * Takes a free nonce account for the attestation, in `client`'s transaction (the one that stores the attestation, so
 * a refused attestation holds none). Throws NONCE_POOL_EXHAUSTED when every account is held or being advanced.
 */
export async function holdSolanaNonce(client: Queryable, hold: { attestationId: string; expiresAt: number; now: number }): Promise<HeldNonce> {
  const held = await holdNonceAccount(client, { attestationId: hold.attestationId, heldUntil: hold.expiresAt });
  if (held) return { nonceAccount: held.address, nonce: held.nonce };
  const retryAfter = retryAfterSeconds(await earliestNonceExpiry(client), hold.now);
  throw new AttestationRefused(
    'NONCE_POOL_EXHAUSTED',
    `Every durable nonce account of the Solana pool is held by an outstanding attestation; retry in ${retryAfter} s`,
    { 'Retry-After': String(retryAfter) },
  );
}
