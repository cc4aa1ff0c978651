import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import { bytesToBase64, decodeBase58, encodeBase58, isValidSolanaAddress, signSolanaMessage, solanaPublicKeyOf } from '../../../signing';
import { SOLANA_KEYPAIR } from './fixtures';

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
const nodePublicKey = (publicKey: Uint8Array) =>
  createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(publicKey) }, format: 'jwk' });

describe('Solana signatures (ed25519 over a transaction message)', () => {
  const publicKey = SOLANA_KEYPAIR.publicKey.toBytes();
  const message = Uint8Array.from(randomBytes(180));

  test('are 64 bytes that node:crypto verifies, and equal node:crypto’s own signature', () => {
    const signature = signSolanaMessage(SOLANA_KEYPAIR.secretKey, message);
    expect(signature).toHaveLength(64);
    expect(nodeVerify(null, message, nodePublicKey(publicKey), signature)).toBe(true);
    const nodePrivate = createPrivateKey({
      key: { kty: 'OKP', crv: 'Ed25519', d: b64url(SOLANA_KEYPAIR.secretKey.subarray(0, 32)), x: b64url(publicKey) },
      format: 'jwk',
    });
    expect(new Uint8Array(nodeSign(null, message, nodePrivate))).toEqual(signature);
    expect(Buffer.from(bytesToBase64(signature), 'base64')).toEqual(Buffer.from(signature));
    const tampered = Uint8Array.from(message);
    tampered[7] = (tampered[7] ?? 0) ^ 1;
    expect(nodeVerify(null, tampered, nodePublicKey(publicKey), signature)).toBe(false);
  });

  test('accept the 32-byte seed as well as the 64-byte secret key', () => {
    expect(signSolanaMessage(SOLANA_KEYPAIR.secretKey.subarray(0, 32), message)).toEqual(signSolanaMessage(SOLANA_KEYPAIR.secretKey, message));
    expect(solanaPublicKeyOf(SOLANA_KEYPAIR.secretKey)).toBe(SOLANA_KEYPAIR.publicKey.toBase58());
    expect(() => signSolanaMessage(new Uint8Array(48), message)).toThrow('64 bytes');
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
