/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secrets endpoints are given, and the
 * `webhook-signature` header of a delivery, through the convention's own library.
 */

const PENDING = 'issue 37 contract: implemented by the delivery work package';

/** A new signing secret, `whsec_` and 32 random bytes in base64: shown to its owner once. */
export function newWebhookSecret(): string {
  throw new Error(PENDING);
}

/** The `webhook-signature` header: one `v1,<base64>` per secret (the new and, during a rotation, the old), space-separated. */
export function signWebhook(secrets: readonly string[], id: string, at: Date, body: string): string {
  void [secrets, id, at, body];
  throw new Error(PENDING);
}
