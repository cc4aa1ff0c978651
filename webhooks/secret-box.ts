/**
 * Webhook signing secrets at rest: sealed with AES-256-GCM under the operator's master keys
 * (`WEBHOOK_SECRET_KEYS`), the endpoint id bound in as associated data, so neither a read of the database nor a
 * secret copied onto another endpoint gives a usable secret.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../db/queries/webhooks';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export interface SecretBox {
  /** Seals `secret` (a `whsec_…` string) for `endpointId` under the first key. */
  seal(endpointId: string, secret: string): SealedSecret;
  /** Opens a sealed secret of `endpointId`; throws when no key opens it. */
  open(endpointId: string, sealed: SealedSecret): string;
}

/** Parses `WEBHOOK_SECRET_KEYS` into an ordered keyring; throws naming the variable (never a key) when malformed. */
function parseKeyring(keys: string): Map<string, Buffer> {
  const keyring = new Map<string, Buffer>();
  for (const entry of keys.split(',').map((part) => part.trim()).filter(Boolean)) {
    const separator = entry.indexOf(':');
    const id = entry.slice(0, separator);
    const key = Buffer.from(entry.slice(separator + 1), 'base64');
    if (separator < 0 || !KEY_ID.test(id) || key.length !== KEY_BYTES) {
      throw new Error(`WEBHOOK_SECRET_KEYS: each entry is id:<base64 of ${KEY_BYTES} bytes>, the id of [A-Za-z0-9_-]`);
    }
    if (keyring.has(id)) throw new Error(`WEBHOOK_SECRET_KEYS: the key id ${id} appears twice`);
    keyring.set(id, key);
  }
  if (keyring.size === 0) throw new Error('WEBHOOK_SECRET_KEYS: no key');
  return keyring;
}

/** Parses `WEBHOOK_SECRET_KEYS` (`id:<base64 of 32 bytes>`, comma-separated, the first sealing). */
export function createSecretBox(keys: string): SecretBox {
  const keyring = parseKeyring(keys);
  const [sealingId, sealingKey] = keyring.entries().next().value as [string, Buffer];
  return {
    seal(endpointId, secret) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv).setAAD(Buffer.from(endpointId, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return { keyId: sealingId, sealed: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]) };
    },
    open(endpointId, { keyId, sealed }) {
      const key = keyring.get(keyId);
      if (key === undefined) throw new Error(`webhook secret sealed under key ${keyId}, which WEBHOOK_SECRET_KEYS lacks`);
      if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error(`webhook secret of ${endpointId} is truncated`);
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(endpointId, 'utf8')).setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new Error(`webhook secret of ${endpointId} does not open under key ${keyId}`, { cause: error });
      }
    },
  };
}

/** A new master key entry, `id:<base64>`, for `npm start` and tests. */
export function newWebhookMasterKey(): string {
  return `k${randomBytes(4).toString('hex')}:${randomBytes(KEY_BYTES).toString('base64')}`;
}
