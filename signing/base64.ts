/**
 * Base64 forms of signing outputs for API responses: `signature` is base64 of the raw signature
 * bytes (65-byte r‖s‖v on EVM chains, 64-byte ed25519 on Solana), `additionalData` base64 of 32 bytes.
 * Standard alphabet with padding.
 */
import { hexToBytes, isHex, type Hex } from 'viem';

/** Standard, padded base64 of the bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Decodes standard, padded base64; throws on anything that is not its canonical form. */
export function base64ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  if (bytesToBase64(bytes) !== text) throw new Error('not canonical base64');
  return bytes;
}

/** base64 of a hex string's bytes, e.g. a bytes32 `additionalData`. */
export function hexToBase64(hex: Hex): string {
  if (!isHex(hex, { strict: true }) || hex.length % 2 !== 0) throw new Error('not an even-length 0x hex string');
  return bytesToBase64(hexToBytes(hex));
}
