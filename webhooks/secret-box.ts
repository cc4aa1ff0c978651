/**
 * Webhook signing secrets at rest: sealed with AES-256-GCM under the operator's master keys
 * (`WEBHOOK_SECRET_KEYS`), the endpoint id bound in as associated data, so neither a read of the database nor a
 * secret copied onto another endpoint gives a usable secret.
 */
import type { SealedSecret } from '../db/queries/webhooks';

const PENDING = 'issue 37 contract: implemented by the delivery work package';

export interface SecretBox {
  /** Seals `secret` (a `whsec_…` string) for `endpointId` under the first key. */
  seal(endpointId: string, secret: string): SealedSecret;
  /** Opens a sealed secret of `endpointId`; throws when no key opens it. */
  open(endpointId: string, sealed: SealedSecret): string;
}

/** Parses `WEBHOOK_SECRET_KEYS` (`id:<base64 of 32 bytes>`, comma-separated, the first sealing). */
export function createSecretBox(keys: string): SecretBox {
  void [keys];
  throw new Error(PENDING);
}

/** A new master key entry, `id:<base64>`, for `npm start` and tests. */
export function newWebhookMasterKey(): string {
  throw new Error(PENDING);
}
