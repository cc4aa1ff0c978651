/**
 * secp256k1 ECDSA over a 32-byte digest, as viem's local accounts sign (RFC 6979 deterministic nonce, low S,
 * v = 27 + recovery id): libsecp256k1 through the `secp256k1` package's prebuilt binding, about eight times
 * faster than the JavaScript curve, which signs instead where no binding loads. Both give the same bytes.
 */
import { secp256k1 as nobleCurve } from '@noble/curves/secp256k1';

interface NativeSecp256k1 {
  ecdsaSign(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // The binding alone: the package's own entry falls back to a slower JavaScript curve without saying so.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

const native = loadNative();

/** Which implementation signs in this process. */
export const secp256k1Implementation: 'native' | 'javascript' = native ? 'native' : 'javascript';

/** The 65-byte `r‖s‖v` signature of `digest` (32 bytes) by `privateKey` (32 bytes). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array, implementation = secp256k1Implementation): Uint8Array {
  const signature = new Uint8Array(65);
  if (implementation === 'native' && native) {
    const { signature: compact, recid } = native.ecdsaSign(digest, privateKey);
    signature.set(compact);
    signature[64] = 27 + recid;
  } else {
    const signed = nobleCurve.sign(digest, privateKey, { lowS: true });
    signature.set(signed.toCompactRawBytes());
    signature[64] = 27 + signed.recovery;
  }
  return signature;
}
