/**
 * Base58 (Bitcoin alphabet, the one Solana uses for addresses and exported secret keys).
 * Small and dependency-free so the signing module does not lean on a transitive package.
 * The encoding is a bijection between byte strings and base58 strings (each leading `1` is one
 * leading zero byte), so decode-then-compare is enough to know an input was canonical.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX: ReadonlyMap<string, bigint> = new Map([...ALPHABET].map((char, i) => [char, BigInt(i)]));

/** Encodes bytes as base58. */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros += 1;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let digits = '';
  while (value > 0n) {
    digits = ALPHABET[Number(value % 58n)] + digits;
    value /= 58n;
  }
  return '1'.repeat(zeros) + digits;
}

/** Decodes a base58 string; `undefined` when it holds a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros += 1;
  let value = 0n;
  for (const char of text) {
    const digit = INDEX.get(char);
    if (digit === undefined) return undefined;
    value = value * 58n + digit;
  }
  const body: number[] = [];
  while (value > 0n) {
    body.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...body]);
}
