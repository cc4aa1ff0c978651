/**
 * ed25519 signing of attestation quotes for Solana (`solana-900`). The signed message is a fixed
 * 190-byte encoding of the same `Quote` fields the EVM chains sign with EIP-712; the layout below is
 * the contract with the on-chain program and is published verbatim in `.data/stack.json`.
 * Signing and verification use `@noble/curves` (the implementation `@solana/web3.js` itself uses),
 * with strict RFC 8032 verification (no ZIP-215 leniency), as Solana's ed25519 program applies.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { hexToBytes } from 'viem';
import { bareChainId, SOLANA_CHAIN } from '../domain/chains';
import { decodeBase58, encodeBase58 } from './base58';
import { InvalidQuoteError, assertQuoteFields, type Quote } from './quote';

/** Bare chain id of the Solana chain. */
export const SOLANA_CHAIN_ID = bareChainId(SOLANA_CHAIN);

/** Domain-separation tag that opens every signed message (ASCII, no terminator). */
export const SOLANA_QUOTE_TAG = 'TokenizedStockIssuer:Quote:v1';

type FieldEncoding = 'ascii' | 'u8' | 'u64' | 'i64' | 'u128' | 'bytes32' | 'pubkey';

/** Field order and widths of the signed message; integers are big-endian, unsigned unless `i64`. */
const FIELDS: ReadonlyArray<{ name: 'tag' | keyof Quote; encoding: FieldEncoding; size: number; note: string }> = [
  { name: 'tag', encoding: 'ascii', size: SOLANA_QUOTE_TAG.length, note: `ASCII "${SOLANA_QUOTE_TAG}"` },
  { name: 'chainId', encoding: 'u64', size: 8, note: `u64 (${SOLANA_CHAIN_ID})` },
  { name: 'attestationId', encoding: 'u128', size: 16, note: 'u128' },
  { name: 'userId', encoding: 'bytes32', size: 32, note: '32 bytes (the bytes32 userId)' },
  { name: 'asset', encoding: 'pubkey', size: 32, note: '32 bytes (the token mint public key, base58-decoded)' },
  { name: 'price', encoding: 'u128', size: 16, note: 'u128 (price scaled by 1e18)' },
  { name: 'quantity', encoding: 'u128', size: 16, note: 'u128 (token amount scaled by 1e18)' },
  { name: 'expiration', encoding: 'i64', size: 8, note: 'i64 (epoch seconds, comparable with Clock::unix_timestamp)' },
  { name: 'side', encoding: 'u8', size: 1, note: 'u8 (0 = buy, 1 = sell)' },
  { name: 'additionalData', encoding: 'bytes32', size: 32, note: '32 bytes' },
];

/** Length in bytes of an encoded quote. */
export const SOLANA_QUOTE_LENGTH = FIELDS.reduce((total, field) => total + field.size, 0);

/** Byte offset of each field in the encoded quote. */
export const SOLANA_QUOTE_OFFSETS: Readonly<Record<'tag' | keyof Quote, number>> = (() => {
  const offsets: Partial<Record<'tag' | keyof Quote, number>> = {};
  let offset = 0;
  for (const field of FIELDS) {
    offsets[field.name] = offset;
    offset += field.size;
  }
  return offsets as Record<'tag' | keyof Quote, number>;
})();

/** How the signed bytes are laid out, for anyone verifying a Solana attestation (`signers.solana.message`). */
export const SOLANA_QUOTE_LAYOUT =
  `ed25519 signature (64 bytes, base64 in the API) over a ${SOLANA_QUOTE_LENGTH}-byte message; integers big-endian; ` +
  FIELDS.map((field) => `[${SOLANA_QUOTE_OFFSETS[field.name]}..${SOLANA_QUOTE_OFFSETS[field.name] + field.size}) ${field.name} ${field.note}`).join('; ');

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
 * are deliberately off-curve; token mints here are too, so pass `allowOffCurve` for those.
 */
export function isValidSolanaAddress(address: string, options: SolanaAddressOptions = {}): boolean {
  const bytes = solanaAddressBytes(address);
  if (bytes === undefined) return false;
  return options.allowOffCurve === true || isOnCurve(bytes);
}

function writeUnsigned(target: Uint8Array, offset: number, size: number, value: bigint): void {
  let rest = value;
  for (let i = size - 1; i >= 0; i -= 1) {
    target[offset + i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
}

/** Checks a quote meant for Solana: the common fields, chain id 900 and a base58 mint as `asset`. */
export function assertSolanaQuote(quote: Quote): void {
  assertQuoteFields(quote);
  if (quote.chainId !== SOLANA_CHAIN_ID) throw new InvalidQuoteError('chainId', `must be ${SOLANA_CHAIN_ID} for Solana`);
  if (!isValidSolanaAddress(quote.asset, { allowOffCurve: true })) {
    throw new InvalidQuoteError('asset', 'must be a base58 Solana address of 32 bytes');
  }
}

/** The exact bytes that are signed for a Solana quote (see `SOLANA_QUOTE_LAYOUT`). */
export function encodeSolanaQuote(quote: Quote): Uint8Array {
  assertSolanaQuote(quote);
  const out = new Uint8Array(SOLANA_QUOTE_LENGTH);
  for (const field of FIELDS) {
    const offset = SOLANA_QUOTE_OFFSETS[field.name];
    if (field.name === 'tag') {
      out.set(new TextEncoder().encode(SOLANA_QUOTE_TAG), offset);
      continue;
    }
    const value = quote[field.name];
    switch (field.encoding) {
      case 'u8':
      case 'u64':
      case 'i64':
      case 'u128':
        // Ranges were checked above (expiration < 2^63), so i64 is written like u64.
        writeUnsigned(out, offset, field.size, BigInt(value));
        break;
      case 'bytes32':
        out.set(hexToBytes(value as `0x${string}`), offset);
        break;
      case 'pubkey':
        out.set(solanaAddressBytes(value as string) as Uint8Array, offset);
        break;
      default:
        throw new Error(`unhandled encoding ${field.encoding}`);
    }
  }
  return out;
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

/**
 * Signs a Solana quote: a 64-byte ed25519 signature over `encodeSolanaQuote(quote)`.
 * `secretKey` is Solana's 64-byte `seed ‖ public key` form (as in `Keypair.secretKey`) or the seed.
 */
export function signSolanaQuote(secretKey: Uint8Array, quote: Quote): Uint8Array {
  return ed25519.sign(encodeSolanaQuote(quote), seedOf(secretKey));
}

/** Signs arbitrary bytes (a Solana transaction message) with the secret key: a 64-byte ed25519 signature. */
export function signSolanaMessage(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seedOf(secretKey));
}

/** Whether `signature` is `publicKey`'s ed25519 signature of this quote; false for malformed keys or signatures. */
export function verifySolanaQuote(publicKey: string | Uint8Array, quote: Quote, signature: Uint8Array): boolean {
  const message = encodeSolanaQuote(quote);
  const key = typeof publicKey === 'string' ? solanaAddressBytes(publicKey) : publicKey;
  if (key?.length !== 32 || !(signature instanceof Uint8Array) || signature.length !== 64) return false;
  try {
    return ed25519.verify(signature, message, key, { zip215: false });
  } catch {
    return false;
  }
}
