import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519';
import { Keypair, PublicKey } from '@solana/web3.js';
import { recoverTypedDataAddress, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../../config';
import {
  EVM_KEY_VARIABLE,
  QUOTE_TYPES,
  SOLANA_KEY_VARIABLE,
  decodeBase58,
  encodeBase58,
  evmDomain,
  loadSigners,
  type Signers,
} from '../../../signing';
import { EVM_PRIVATE_KEY, SOLANA_KEYPAIR, TOKEN_MANAGER_ETH, evmQuote } from './fixtures';

const SOLANA_SECRET = encodeBase58(SOLANA_KEYPAIR.secretKey);
const CONFIGURED = { ATTESTATION_EVM_PRIVATE_KEY: EVM_PRIVATE_KEY, ATTESTATION_SOLANA_SECRET_KEY: SOLANA_SECRET };
/** The signer keys as the process configuration parses them from an environment. */
const keysFrom = (env: Record<string, string>) => loadConfig([EVM_KEY_VARIABLE, SOLANA_KEY_VARIABLE], env);
const domain = evmDomain('ethereum-1', TOKEN_MANAGER_ETH);

let dataDir: string;
beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function evmSignerOf(signers: Signers): Promise<string> {
  const quote = evmQuote();
  const signature = await signers.evm.sign(quote, domain);
  return recoverTypedDataAddress({
    domain,
    types: QUOTE_TYPES,
    primaryType: 'Quote',
    message: { ...quote, asset: quote.asset as Address },
    signature: `0x${Buffer.from(signature).toString('hex')}`,
  });
}

/** Every form in which a secret could leak into text. */
function secretForms(evmKey: string, solanaSecret: Uint8Array): string[] {
  const seed = solanaSecret.subarray(0, 32);
  return [
    evmKey.slice(2).toLowerCase(),
    Buffer.from(evmKey.slice(2), 'hex').toString('base64'),
    encodeBase58(solanaSecret),
    Buffer.from(seed).toString('hex'),
    Buffer.from(seed).toString('base64'),
    encodeBase58(seed),
    inspect(Array.from(seed.subarray(0, 8))).slice(1, -1).trim(),
  ];
}

function expectNoSecrets(signers: Signers, evmKey: string, solanaSecret: Uint8Array): void {
  const texts = [
    JSON.stringify(signers),
    JSON.stringify(signers.evm),
    JSON.stringify(signers.solana),
    inspect(signers, { depth: Infinity, showHidden: true }),
    inspect(signers.evm, { depth: Infinity, showHidden: true }),
    inspect(signers.solana, { depth: Infinity, showHidden: true }),
    `${signers}`,
    Object.values(signers.evm).map(String).join(' '),
    Object.values(signers.solana).map(String).join(' '),
  ];
  for (const text of texts) {
    for (const secret of secretForms(evmKey, solanaSecret)) {
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  }
}

describe('loadSigners', () => {
  test('uses the configured keys and writes no development file', async () => {
    const signers = loadSigners({ keys: keysFrom(CONFIGURED), dataDir });
    expect(signers.evm.address).toBe(privateKeyToAccount(EVM_PRIVATE_KEY).address);
    expect(signers.solana.publicKey).toBe(SOLANA_KEYPAIR.publicKey.toBase58());
    expect([signers.evm.source, signers.solana.source]).toEqual(['configured', 'configured']);
    expect(await evmSignerOf(signers)).toBe(signers.evm.address);
    const message = new TextEncoder().encode('a transaction message');
    expect(ed25519.verify(signers.solana.signMessage(message), message, SOLANA_KEYPAIR.publicKey.toBytes())).toBe(true);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  test('generates a development key pair once, private to the owner, and reuses it on the next load', async () => {
    const first = loadSigners({ dataDir });
    const file = path.join(dataDir, 'signer-keys.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dataDir)).toEqual(['signer-keys.json']);
    const second = loadSigners({ keys: keysFrom({ ATTESTATION_EVM_PRIVATE_KEY: '', ATTESTATION_SOLANA_SECRET_KEY: '' }), dataDir });
    expect([first.evm.source, first.solana.source]).toEqual(['development', 'development']);
    expect(second.evm.address).toBe(first.evm.address);
    expect(second.solana.publicKey).toBe(first.solana.publicKey);
    // A signature made before the "restart" verifies against the key loaded after it.
    const message = new TextEncoder().encode('a transaction message');
    expect(ed25519.verify(first.solana.signMessage(message), message, new PublicKey(second.solana.publicKey).toBytes())).toBe(true);
    expect(await evmSignerOf(first)).toBe(second.evm.address);
    // A fresh data directory means a different development signer.
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-'));
    try {
      expect(loadSigners({ dataDir: otherDir }).evm.address).not.toBe(first.evm.address);
    } finally {
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });

  test('creates the data directory when it does not exist yet', () => {
    const nested = path.join(dataDir, 'a', 'b');
    const signers = loadSigners({ dataDir: nested });
    expect(fs.existsSync(path.join(nested, 'signer-keys.json'))).toBe(true);
    expect(signers.solana.source).toBe('development');
  });

  test('mixes a configured key with a development one', () => {
    const signers = loadSigners({ keys: keysFrom({ ATTESTATION_EVM_PRIVATE_KEY: EVM_PRIVATE_KEY }), dataDir });
    expect(signers.evm).toMatchObject({ address: privateKeyToAccount(EVM_PRIVATE_KEY).address, source: 'configured' });
    expect(signers.solana.source).toBe('development');
    expect(signers.solana.publicKey).not.toBe(SOLANA_KEYPAIR.publicKey.toBase58());
  });

  const mismatched = Uint8Array.from(SOLANA_KEYPAIR.secretKey);
  mismatched.set(Keypair.generate().publicKey.toBytes(), 32);
  const bad: Array<[string, string, string, string]> = [
    ['ATTESTATION_EVM_PRIVATE_KEY', 'no 0x prefix', EVM_PRIVATE_KEY.slice(2), '64 hex digits'],
    ['ATTESTATION_EVM_PRIVATE_KEY', '31 bytes', EVM_PRIVATE_KEY.slice(0, -2), '64 hex digits'],
    ['ATTESTATION_EVM_PRIVATE_KEY', 'zero', `0x${'00'.repeat(32)}`, 'not a valid secp256k1'],
    ['ATTESTATION_EVM_PRIVATE_KEY', 'above the curve order', `0x${'ff'.repeat(32)}`, 'not a valid secp256k1'],
    ['ATTESTATION_SOLANA_SECRET_KEY', 'base64 instead of base58', Buffer.from(SOLANA_KEYPAIR.secretKey).toString('base64'), 'base58 of a 64-byte'],
    ['ATTESTATION_SOLANA_SECRET_KEY', 'only the 32-byte seed', encodeBase58(SOLANA_KEYPAIR.secretKey.subarray(0, 32)), 'base58 of a 64-byte'],
    ['ATTESTATION_SOLANA_SECRET_KEY', 'a public half that is not the seed’s', encodeBase58(mismatched), 'not the public key'],
  ];
  test.each(bad)('%s with %s fails naming the variable, without echoing the value', (variable, _case, value, reason) => {
    const attempt = () => loadSigners({ keys: keysFrom({ ...CONFIGURED, [variable]: value }), dataDir });
    expect(attempt).toThrow(new RegExp(`^invalid configuration: ${variable}: .*${reason}`));
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain(value);
      expect((error as Error).message).not.toContain(value.slice(2, 20));
    }
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  test('a damaged development key file fails naming the file and is left alone', () => {
    const file = path.join(dataDir, 'signer-keys.json');
    fs.writeFileSync(file, '{"evmPrivateKey": "0x12"', { mode: 0o600 });
    expect(() => loadSigners({ dataDir })).toThrow(`${file}: is not readable JSON`);
    fs.writeFileSync(file, JSON.stringify({ evmPrivateKey: '0x12', solanaSecretKey: SOLANA_SECRET, createdAt: 'x' }));
    expect(() => loadSigners({ dataDir })).toThrow(`${file}: evmPrivateKey must be 0x followed by 64 hex digits`);
    expect(fs.readFileSync(file, 'utf8')).toContain('0x12');
  });

  test('an existing development key file is used as it is', () => {
    fs.writeFileSync(
      path.join(dataDir, 'signer-keys.json'),
      JSON.stringify({ evmPrivateKey: EVM_PRIVATE_KEY, solanaSecretKey: SOLANA_SECRET, createdAt: '2026-01-01T00:00:00Z' }),
    );
    const signers = loadSigners({ dataDir });
    expect(signers.evm.address).toBe(privateKeyToAccount(EVM_PRIVATE_KEY).address);
    expect(signers.solana.publicKey).toBe(SOLANA_KEYPAIR.publicKey.toBase58());
  });

  test('JSON and inspect show only public parts, for configured and development keys', () => {
    const configured = loadSigners({ keys: keysFrom(CONFIGURED), dataDir });
    expect(JSON.parse(JSON.stringify(configured))).toEqual({
      evm: { address: configured.evm.address, source: 'configured' },
      solana: { publicKey: configured.solana.publicKey, source: 'configured' },
    });
    expect(inspect(configured)).toContain(configured.evm.address);
    expectNoSecrets(configured, EVM_PRIVATE_KEY, SOLANA_KEYPAIR.secretKey);

    const development = loadSigners({ dataDir });
    const stored = JSON.parse(fs.readFileSync(path.join(dataDir, 'signer-keys.json'), 'utf8')) as {
      evmPrivateKey: string;
      solanaSecretKey: string;
    };
    const solanaSecret = Keypair.fromSecretKey(decodeBase58(stored.solanaSecretKey) ?? new Uint8Array()).secretKey;
    expectNoSecrets(development, stored.evmPrivateKey, solanaSecret);
  });

  test('signers are frozen: the signing functions cannot be swapped', () => {
    const signers = loadSigners({ keys: keysFrom(CONFIGURED), dataDir });
    expect(Object.isFrozen(signers) && Object.isFrozen(signers.evm) && Object.isFrozen(signers.solana)).toBe(true);
  });
});

test('two malformed variables are both named in one error', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signing-keys-'));
  try {
    expect(() => loadSigners({ keys: keysFrom({ ATTESTATION_EVM_PRIVATE_KEY: 'x', ATTESTATION_SOLANA_SECRET_KEY: 'y' }), dataDir })).toThrow(
      /ATTESTATION_EVM_PRIVATE_KEY: must be .*; ATTESTATION_SOLANA_SECRET_KEY: must be base58/,
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
