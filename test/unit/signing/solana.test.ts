import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  InvalidQuoteError,
  SOLANA_QUOTE_LAYOUT,
  SOLANA_QUOTE_LENGTH,
  bytesToBase64,
  decodeBase58,
  encodeBase58,
  encodeSolanaQuote,
  isValidSolanaAddress,
  signSolanaQuote,
  solanaPublicKeyOf,
  verifySolanaQuote,
  type Quote,
} from '../../../signing';
import { SOLANA_KEYPAIR, TAMPERED_FIELDS, solanaQuote } from './fixtures';

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const nodePublicKey = (publicKey: Uint8Array) =>
  createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(publicKey) }, format: 'jwk' });
const beHex = (value: bigint, bytes: number): string => value.toString(16).padStart(bytes * 2, '0');
const hexAt = (bytes: Uint8Array, offset: number, length: number): string =>
  Buffer.from(bytes.subarray(offset, offset + length)).toString('hex');

describe('Solana quote encoding', () => {
  test('is 190 bytes laid out as documented, integers big-endian', () => {
    const quote = solanaQuote({ attestationId: (1n << 127n) + 5n, expiration: 1_790_000_123n });
    const bytes = encodeSolanaQuote(quote);
    expect(bytes).toHaveLength(190);
    expect(SOLANA_QUOTE_LENGTH).toBe(190);
    expect(Buffer.from(bytes.subarray(0, 29)).toString('latin1')).toBe('TokenizedStockIssuer:Quote:v1');
    expect(hexAt(bytes, 29, 8)).toBe('0000000000000384');
    expect(hexAt(bytes, 37, 16)).toBe('80000000000000000000000000000005');
    expect(hexAt(bytes, 53, 32)).toBe(quote.userId.slice(2));
    expect(hexAt(bytes, 85, 32)).toBe(Buffer.from(new PublicKey(quote.asset).toBytes()).toString('hex'));
    expect(hexAt(bytes, 117, 16)).toBe(beHex(187_250_000_000_000_000_000n, 16));
    expect(hexAt(bytes, 133, 16)).toBe(beHex(12_500_000_000_000_000_000n, 16));
    expect(hexAt(bytes, 149, 8)).toBe(beHex(1_790_000_123n, 8));
    expect(bytes[157]).toBe(1);
    expect(hexAt(bytes, 158, 32)).toBe(quote.additionalData.slice(2));
  });

  test('the published layout names every field with its byte range', () => {
    for (const part of [
      '190-byte message',
      'big-endian',
      '[0..29) tag ASCII "TokenizedStockIssuer:Quote:v1"',
      '[29..37) chainId u64',
      '[37..53) attestationId u128',
      '[53..85) userId',
      '[85..117) asset',
      '[117..133) price u128',
      '[133..149) quantity u128',
      '[149..157) expiration i64',
      '[157..158) side u8',
      '[158..190) additionalData',
    ]) {
      expect(SOLANA_QUOTE_LAYOUT).toContain(part);
    }
  });

  const invalid: Array<[string, Partial<Quote>, keyof Quote]> = [
    ['an EVM chain id', { chainId: 1n }, 'chainId'],
    ['an EVM asset', { asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }, 'asset'],
    ['a 31-byte asset', { asset: encodeBase58(new Uint8Array(31).fill(9)) }, 'asset'],
    ['a quantity of 2^128', { quantity: 1n << 128n }, 'quantity'],
    ['an expiration of 2^63', { expiration: 1n << 63n }, 'expiration'],
  ];
  test.each(invalid)('refuses %s', (_case, change, field) => {
    expect(() => encodeSolanaQuote(solanaQuote(change))).toThrow(InvalidQuoteError);
    expect(() => encodeSolanaQuote(solanaQuote(change))).toThrow(`invalid quote ${field}`);
  });

  test('holds the largest values each field allows', () => {
    const max = (1n << 128n) - 1n;
    const bytes = encodeSolanaQuote(solanaQuote({ attestationId: max, price: max, quantity: max, expiration: (1n << 63n) - 1n }));
    expect(hexAt(bytes, 37, 16)).toBe('ff'.repeat(16));
    expect(hexAt(bytes, 149, 8)).toBe('7fffffffffffffff');
  });
});

describe('Solana quote signatures (ed25519)', () => {
  const publicKey = SOLANA_KEYPAIR.publicKey.toBytes();

  test('are 64 bytes that node:crypto verifies, and equal node:crypto’s own signature', () => {
    const quote = solanaQuote();
    const signature = signSolanaQuote(SOLANA_KEYPAIR.secretKey, quote);
    expect(signature).toHaveLength(64);
    const message = encodeSolanaQuote(quote);
    expect(nodeVerify(null, message, nodePublicKey(publicKey), signature)).toBe(true);
    const nodePrivate = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: b64url(SOLANA_KEYPAIR.secretKey.subarray(0, 32)), x: b64url(publicKey) },
      format: 'jwk',
    });
    expect(new Uint8Array(nodeSign(null, message, nodePrivate))).toEqual(signature);
    expect(verifySolanaQuote(SOLANA_KEYPAIR.publicKey.toBase58(), quote, signature)).toBe(true);
    expect(verifySolanaQuote(publicKey, quote, signature)).toBe(true);
    expect(Buffer.from(bytesToBase64(signature), 'base64')).toEqual(Buffer.from(signature));
  });

  test.each([...TAMPERED_FIELDS, ['asset', () => ({ asset: Keypair.generate().publicKey.toBase58() })] as const])(
    'fail to verify when %s is tampered with',
    (_field, change) => {
      const quote = solanaQuote();
      const signature = signSolanaQuote(SOLANA_KEYPAIR.secretKey, quote);
      const tampered = { ...quote, ...change(quote) };
      expect(nodeVerify(null, encodeSolanaQuote(tampered), nodePublicKey(publicKey), signature)).toBe(false);
      expect(verifySolanaQuote(publicKey, tampered, signature)).toBe(false);
    },
  );

  test('fail to verify under another key, or with a malformed key or signature', () => {
    const quote = solanaQuote();
    const signature = signSolanaQuote(SOLANA_KEYPAIR.secretKey, quote);
    expect(verifySolanaQuote(Keypair.generate().publicKey.toBase58(), quote, signature)).toBe(false);
    expect(verifySolanaQuote('not-a-key', quote, signature)).toBe(false);
    expect(verifySolanaQuote(publicKey.subarray(0, 31), quote, signature)).toBe(false);
    expect(verifySolanaQuote(publicKey, quote, signature.subarray(0, 63))).toBe(false);
    const flipped = Uint8Array.from(signature);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect(verifySolanaQuote(publicKey, quote, flipped)).toBe(false);
  });

  test('accept the 32-byte seed as well as the 64-byte secret key', () => {
    const quote = solanaQuote();
    expect(signSolanaQuote(SOLANA_KEYPAIR.secretKey.subarray(0, 32), quote)).toEqual(signSolanaQuote(SOLANA_KEYPAIR.secretKey, quote));
    expect(solanaPublicKeyOf(SOLANA_KEYPAIR.secretKey)).toBe(SOLANA_KEYPAIR.publicKey.toBase58());
    expect(() => signSolanaQuote(new Uint8Array(48), quote)).toThrow('64 bytes');
  });
});

describe('Solana addresses', () => {
  test('a wallet public key is valid; a program-derived address only with allowOffCurve', () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from('vault')], SOLANA_KEYPAIR.publicKey);
    expect(isValidSolanaAddress(wallet)).toBe(true);
    expect(isValidSolanaAddress(pda.toBase58())).toBe(false);
    expect(isValidSolanaAddress(pda.toBase58(), { allowOffCurve: true })).toBe(true);
  });

  test('on-curve checks agree with @solana/web3.js on random keys', () => {
    for (let i = 0; i < 64; i += 1) {
      const bytes = new Uint8Array(randomBytes(32));
      expect(isValidSolanaAddress(encodeBase58(bytes))).toBe(PublicKey.isOnCurve(bytes));
    }
  });

  test.each([
    ['empty', ''],
    ['31 bytes', encodeBase58(new Uint8Array(31).fill(7))],
    ['33 bytes', encodeBase58(new Uint8Array(33).fill(7))],
    ['a character outside base58', `0${Keypair.generate().publicKey.toBase58().slice(1)}`],
    ['surrounding whitespace', ` ${Keypair.generate().publicKey.toBase58()}`],
    ['an EVM address', '0x5FbDB2315678afecb367f032d93F642f64180aa3'],
  ])('rejects %s', (_case, address) => {
    expect(isValidSolanaAddress(address, { allowOffCurve: true })).toBe(false);
  });

  test('base58 agrees with @solana/web3.js, leading zero bytes included', () => {
    for (const bytes of [new Uint8Array(32), Uint8Array.from([0, 0, ...randomBytes(30)]), new Uint8Array(randomBytes(32))]) {
      const key = new PublicKey(bytes);
      expect(encodeBase58(bytes)).toBe(key.toBase58());
      expect(decodeBase58(key.toBase58())).toEqual(bytes);
    }
    expect(decodeBase58('0OIl')).toBeUndefined();
  });
});
