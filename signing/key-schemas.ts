/**
 * The attestation signer key variables and their parsers, used by the one configuration schema
 * (config/). `ATTESTATION_EVM_PRIVATE_KEY` is 0x + 64 hex digits (a secp256k1 private key);
 * `ATTESTATION_SOLANA_SECRET_KEY` is base58 of Solana's 64-byte `seed ‖ public key`. An unset or
 * empty variable means "use the development key". Messages never echo the value: it may be a
 * (mistyped) secret.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { type Hex } from 'viem';
import { z } from 'zod';
import { decodeBase58 } from './base58';

export const EVM_KEY_VARIABLE = 'ATTESTATION_EVM_PRIVATE_KEY';
export const SOLANA_KEY_VARIABLE = 'ATTESTATION_SOLANA_SECRET_KEY';

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

// One transform rather than regex + refine: zod runs later checks after a failed one, and
// `BigInt(value)` on a malformed key would throw an error that quotes the key.
export const evmPrivateKeySchema = z.string().transform((text, context) => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(text)) {
    context.addIssue({ code: 'custom', message: 'must be 0x followed by 64 hex digits (a 32-byte secp256k1 private key)' });
    return z.NEVER;
  }
  const scalar = BigInt(text);
  if (scalar === 0n || scalar >= SECP256K1_ORDER) {
    context.addIssue({ code: 'custom', message: 'is not a valid secp256k1 private key (zero or not below the curve order)' });
    return z.NEVER;
  }
  return text.toLowerCase() as Hex;
});

export const solanaSecretKeySchema = z
  .string()
  .transform((text, context) => {
    const bytes = decodeBase58(text);
    if (bytes?.length !== 64) {
      context.addIssue({ code: 'custom', message: 'must be base58 of a 64-byte Solana secret key (seed ‖ public key)' });
      return z.NEVER;
    }
    const derived = ed25519.getPublicKey(bytes.subarray(0, 32));
    if (!derived.every((byte, i) => byte === bytes[32 + i])) {
      context.addIssue({ code: 'custom', message: 'its last 32 bytes are not the public key of its first 32 (seed)' });
      return z.NEVER;
    }
    return bytes;
  });

const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);

/** Both key variables, as config/ declares them. */
export const signerKeyVariables = {
  [EVM_KEY_VARIABLE]: z.preprocess(unsetWhenEmpty, evmPrivateKeySchema.optional()),
  [SOLANA_KEY_VARIABLE]: z.preprocess(unsetWhenEmpty, solanaSecretKeySchema.optional()),
};

/** The parsed keys; an absent one falls back to the development key. */
export interface SignerKeys {
  [EVM_KEY_VARIABLE]?: Hex;
  [SOLANA_KEY_VARIABLE]?: Uint8Array;
}
