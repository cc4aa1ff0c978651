/**
 * An attestation as the API answers it, and what its fields mean: the side, the chain it names, its bytes (the
 * signature and `additionalData` are base64), and the amounts it moves, rounded as the contract and the Solana
 * transaction round them (always in the issuer's favour).
 */
import type { components } from './generated/api.ts';
import { CHAINS, type Chain } from './generated/contracts.ts';

export type Attestation = components['schemas']['Attestation'];
/** The signed fields of an attestation: what verifying and submitting it read. */
export type AttestationFields = Pick<Attestation, 'attestationId' | 'userId' | 'chainId' | 'assetAddress' | 'side' | 'tokenAmount' | 'price' | 'expiration' | 'signature' | 'additionalData'>;
export type Signers = components['schemas']['AttestationSigners'];

/** The quote's fixed-point scale: prices and quantities are integers scaled by 10^18. */
export const QUOTE_DECIMALS = 18;

/** The chain an attestation's bare `chainId` names, or undefined. */
export function chainOfAttestation(attestation: Pick<AttestationFields, 'chainId'>): Chain | undefined {
  return (Object.keys(CHAINS) as Chain[]).find((chain) => CHAINS[chain].id === String(attestation.chainId));
}

export function isBuy(attestation: Pick<AttestationFields, 'side'>): boolean {
  return attestation.side === '0';
}

/** The SPL Memo program (v2), whose instruction names the attestation in its transaction on Solana. */
export const SPL_MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** The memo of a Solana attestation's transaction. */
export function solanaAttestationMemo(attestationId: string): string {
  return `attestation:${attestationId}`;
}

/** Standard, padded base64 decoded; throws on anything that is not its canonical form. */
export function base64ToBytes(text: string): Uint8Array {
  const bytes = Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
  if (bytesToBase64(bytes) !== text) throw new Error('not canonical base64');
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function bytesToHex(bytes: Uint8Array): `0x${string}` {
  return `0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** `value / 10^shift` rounded down or up. */
function divide(value: bigint, divisor: bigint, up: boolean): bigint {
  const quotient = value / divisor;
  return up && quotient * divisor !== value ? quotient + 1n : quotient;
}

/**
 * What the trade moves, in base units: tokens (of `tokenDecimals`) and the stablecoin (of `stablecoinDecimals`). A buy
 * gets the quantity rounded down and pays price × quantity rounded up; a sell gives the quantity rounded up and is paid
 * price × quantity rounded down.
 */
export function attestationAmounts(attestation: Pick<AttestationFields, 'side' | 'price' | 'tokenAmount'>, tokenDecimals: number, stablecoinDecimals: number): { tokens: bigint; stablecoin: bigint } {
  const buy = isBuy(attestation);
  const scale = 10n ** BigInt(QUOTE_DECIMALS);
  const quantity = BigInt(attestation.tokenAmount);
  return {
    tokens: divide(quantity * 10n ** BigInt(tokenDecimals), scale, !buy),
    stablecoin: divide(BigInt(attestation.price) * quantity * 10n ** BigInt(stablecoinDecimals), scale * scale, buy),
  };
}
