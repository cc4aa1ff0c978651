/**
 * Attestation signer keys from configuration. `ATTESTATION_EVM_PRIVATE_KEY` (0x + 64 hex digits, a
 * secp256k1 private key) signs EIP-712 quotes on every EVM chain; `ATTESTATION_SOLANA_SECRET_KEY`
 * (base58 of Solana's 64-byte `seed ‖ public key`, the form `Keypair.secretKey`, `solana-keygen` and
 * wallet exports hold) co-signs the Solana attestation transactions. An unset or empty variable falls back to a development
 * key generated once and kept in `<dataDir>/signer-keys.json` (mode 0600), so signatures stay
 * verifiable across restarts. The returned signers expose only public parts: the secrets live in
 * closures, and neither JSON nor `util.inspect` nor an error message ever shows them.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519';
import { hexToBytes, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { z } from 'zod';
import { encodeBase58 } from './base58';
import { EVM_KEY_VARIABLE, SOLANA_KEY_VARIABLE, evmPrivateKeySchema, solanaSecretKeySchema, type SignerKeys } from './key-schemas';
import { signEvmQuoteWithKey, type QuoteDomain } from './evm';
import { type Quote } from './quote';
import { signSolanaMessage, solanaPublicKeyOf } from './solana';

/** File name, under the data directory, of the generated development keys. */
export const DEV_KEY_FILE = 'signer-keys.json';

/** `configured`: from the environment; `development`: generated and persisted under the data directory. */
export type KeySource = 'configured' | 'development';

export interface EvmSigner {
  readonly address: Address;
  readonly source: KeySource;
  /** EIP-712 signature (65 bytes, r‖s‖v) of the quote under the domain. */
  sign(quote: Quote, domain: QuoteDomain): Promise<Uint8Array>;
}

export interface SolanaSigner {
  /** base58 public key. */
  readonly publicKey: string;
  readonly source: KeySource;
  /** ed25519 signature (64 bytes) of a transaction message: the attestation transaction the issuer co-signs. */
  signMessage(message: Uint8Array): Uint8Array;
}

export interface Signers {
  readonly evm: EvmSigner;
  readonly solana: SolanaSigner;
}

/** A development key file that cannot be used; `variable` names the file. */
export class SignerConfigurationError extends Error {
  override readonly name = 'SignerConfigurationError';
  constructor(
    readonly variable: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${variable}: ${message}`, options);
  }
}

const devKeyFileSchema = z.object({
  evmPrivateKey: evmPrivateKeySchema,
  solanaSecretKey: solanaSecretKeySchema,
  createdAt: z.string(),
});

/** Parses or throws a `SignerConfigurationError` naming the file at fault. */
function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, file: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field === '' ? issue.message : `${field} ${issue.message}`;
  });
  throw new SignerConfigurationError(file, problems.join('; '));
}

/** Keys of the development file, generated with fresh randomness. */
function generateDevKeys(): string {
  const seed = randomBytes(32);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(ed25519.getPublicKey(seed), 32);
  const content = {
    note: 'Development attestation signer keys, generated because ATTESTATION_EVM_PRIVATE_KEY / ATTESTATION_SOLANA_SECRET_KEY were unset. Never use in production.',
    evmPrivateKey: generatePrivateKey(),
    solanaSecretKey: encodeBase58(secretKey),
    createdAt: new Date().toISOString(),
  };
  return `${JSON.stringify(content, null, 2)}\n`;
}

/**
 * Reads `<dataDir>/signer-keys.json`, creating it first when missing. Creation writes a private
 * temporary file and hard-links it into place, so two processes starting together agree on one
 * key pair and nobody ever reads a half-written file.
 */
function readOrCreateDevKeys(dataDir: string): z.infer<typeof devKeyFileSchema> {
  const file = path.join(dataDir, DEV_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fd = fs.openSync(temporary, 'wx', 0o600);
    try {
      fs.writeSync(fd, generateDevKeys());
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.unlinkSync(temporary);
    }
  }
  let content: unknown;
  try {
    content = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SignerConfigurationError(file, 'is not readable JSON; fix or remove it (removing it changes the development signer)', { cause: error });
  }
  return parseOrThrow(devKeyFileSchema, content, file);
}

/** Gives an object a JSON form and an inspect form that show only `view`. */
function publicOnly<T extends object>(target: T, view: () => object): T {
  Object.defineProperty(target, 'toJSON', { value: view, enumerable: false });
  Object.defineProperty(target, inspect.custom, { value: () => view(), enumerable: false });
  return Object.freeze(target);
}

/** Builds signers from raw keys (already validated); the keys stay in closures. */
export function signersFromKeys(keys: {
  evmPrivateKey: Hex;
  solanaSecretKey: Uint8Array;
  evmSource?: KeySource;
  solanaSource?: KeySource;
}): Signers {
  const account = privateKeyToAccount(keys.evmPrivateKey);
  const evmPrivateKey = hexToBytes(keys.evmPrivateKey);
  const solanaSecretKey = Uint8Array.from(keys.solanaSecretKey);
  const evmView = { address: account.address, source: keys.evmSource ?? 'configured' } as const;
  const solanaView = { publicKey: solanaPublicKeyOf(solanaSecretKey), source: keys.solanaSource ?? 'configured' } as const;
  const evm: EvmSigner = publicOnly(
    { ...evmView, sign: async (quote: Quote, domain: QuoteDomain) => signEvmQuoteWithKey(evmPrivateKey, quote, domain) },
    () => ({ ...evmView }),
  );
  const solana: SolanaSigner = publicOnly(
    {
      ...solanaView,
      signMessage: (message: Uint8Array) => signSolanaMessage(solanaSecretKey, message),
    },
    () => ({ ...solanaView }),
  );
  return publicOnly({ evm, solana }, () => ({ evm: { ...evmView }, solana: { ...solanaView } }));
}

/**
 * The attestation signers: each key from configuration (parsed by config/, see key-schemas.ts) when set,
 * otherwise from the development key file under `dataDir` (created on first use). Throws
 * `SignerConfigurationError` naming the file when the development file is damaged.
 */
export function loadSigners(options: { keys?: SignerKeys; dataDir: string }): Signers {
  const evmKey = options.keys?.[EVM_KEY_VARIABLE];
  const solanaKey = options.keys?.[SOLANA_KEY_VARIABLE];
  const dev = evmKey === undefined || solanaKey === undefined ? readOrCreateDevKeys(options.dataDir) : undefined;
  return signersFromKeys({
    evmPrivateKey: evmKey ?? (dev as NonNullable<typeof dev>).evmPrivateKey,
    solanaSecretKey: solanaKey ?? (dev as NonNullable<typeof dev>).solanaSecretKey,
    evmSource: evmKey === undefined ? 'development' : 'configured',
    solanaSource: solanaKey === undefined ? 'development' : 'configured',
  });
}
