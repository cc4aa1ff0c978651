/**
 * The issuer's Solana accounts, derived from its key: each mint and each durable nonce account of the pool is the
 * key pair of sha256(issuer seed ‖ `tokenized-stock-issuer/solana/<label>`), so only the issuer can create them and
 * whoever holds the issuer key finds the same addresses — `npm start`'s set-up makes them, and what signs with them
 * later (the attestation's nonce, the mint authority) derives them again instead of storing them.
 */
import { createHash } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, type Address, type KeyPairSigner } from '@solana/kit';
import { signSolanaMessage } from '../signing/solana';
import type { SignSolanaMessage } from '../signing/solana-transaction';

/** The symbol the development stablecoin's mint goes by beside the stock tokens. */
export const SOLANA_STABLECOIN_SYMBOL = 'USD';

const derivedSeed = (issuerSecretKey: Uint8Array, label: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(issuerSecretKey.subarray(0, 32)).update(`tokenized-stock-issuer/solana/${label}`).digest());

/** The issuer itself (mint authority, fee payer, nonce authority), from its 64-byte secret key (seed ‖ public key). */
export function solanaIssuerSigner(issuerSecretKey: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(issuerSecretKey.subarray(0, 32));
}

/** The issuer as the worker signs for it: its address, and its ed25519 signature of a transaction message. */
export async function solanaIssuer(issuerSecretKey: Uint8Array): Promise<{ address: Address; sign: SignSolanaMessage }> {
  return { address: (await solanaIssuerSigner(issuerSecretKey)).address, sign: (message) => signSolanaMessage(issuerSecretKey, message) };
}

/** The mint of `symbol` (a catalogue symbol, or SOLANA_STABLECOIN_SYMBOL). */
export function solanaMintSigner(issuerSecretKey: Uint8Array, symbol: string): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(derivedSeed(issuerSecretKey, `mint/${symbol}`));
}

/** Durable nonce account `index` of the issuer's pool. */
export function solanaNonceSigner(issuerSecretKey: Uint8Array, index: number): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(derivedSeed(issuerSecretKey, `nonce/${index}`));
}
