/**
 * ed25519 for Solana (`solana-900`): the issuer's signature of a transaction message (the attestation transaction,
 * signing/solana-transaction.ts, and the worker's nonce advances), its public key, and the checks of a base58 address.
 * Signing is node:crypto's (OpenSSL: about 40 µs, against 800 µs for `@noble/curves`, the same bytes: ed25519 is
 * deterministic); the curve checks of an address are `@noble/curves`'.
 */
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519';
import { decodeBase58, encodeBase58 } from './base58';

/** What the issuer's Solana signature covers, for anyone verifying a Solana attestation (`signers.solana.message`). */
export const SOLANA_ATTESTATION_MESSAGE =
  'ed25519 signature (64 bytes, base64 in `signature`) over the message of the legacy Solana transaction in `additionalData` ' +
  '(base64 wire transaction, the issuer as its co-signer): advance the durable nonce, then a buy transfers the price in the ' +
  'stablecoin to the treasury and mints the stock token to the user, a sell burns the tokens and pays the stablecoin from ' +
  'the treasury, then the memo attestation:<attestationId>';

/** Options for `isValidSolanaAddress`. */
export interface SolanaAddressOptions {
  /** Accept keys that are not ed25519 points (program-derived addresses, which no wallet can sign for). */
  allowOffCurve?: boolean;
}

/** The 32 bytes behind a base58 Solana address, or `undefined` when it is not one. */
export function solanaAddressBytes(address: string): Uint8Array | undefined {
  if (typeof address !== 'string' || address.length < 32 || address.length > 44) return undefined;
  const bytes = decodeBase58(address);
  return bytes?.length === 32 ? bytes : undefined;
}

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromHex(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `address` is a base58 string of a 32-byte public key. By default the key must also be a
 * point on the ed25519 curve: a user wallet is a key pair that can sign. Program-derived addresses
 * are deliberately off-curve; pass `allowOffCurve` for those.
 */
export function isValidSolanaAddress(address: string, options: SolanaAddressOptions = {}): boolean {
  const bytes = solanaAddressBytes(address);
  if (bytes === undefined) return false;
  return options.allowOffCurve === true || isOnCurve(bytes);
}

function seedOf(secretKey: Uint8Array): Uint8Array {
  if (!(secretKey instanceof Uint8Array) || (secretKey.length !== 64 && secretKey.length !== 32)) {
    throw new Error('Solana secret key must be 64 bytes (seed ‖ public key) or a 32-byte seed');
  }
  return secretKey.subarray(0, 32);
}

/** The base58 public key of a Solana secret key (64-byte `seed ‖ public key`, or the 32-byte seed). */
export function solanaPublicKeyOf(secretKey: Uint8Array): string {
  return encodeBase58(ed25519.getPublicKey(seedOf(secretKey)));
}

/** PKCS#8 DER before a raw 32-byte ed25519 seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** The OpenSSL key of each secret key array signed with (the signers hold theirs for the process's life). */
const privateKeys = new WeakMap<Uint8Array, KeyObject>();

/** Signs arbitrary bytes (a Solana transaction message) with the secret key: a 64-byte ed25519 signature. */
export function signSolanaMessage(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  let key = privateKeys.get(secretKey);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seedOf(secretKey)]), format: 'der', type: 'pkcs8' });
    privateKeys.set(secretKey, key);
  }
  return new Uint8Array(sign(null, message, key));
}
