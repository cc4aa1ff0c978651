/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secrets endpoints are given, and the
 * `webhook-signature` header of a delivery, through the convention's own library.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret, `whsec_` and 32 random bytes in base64: shown to its owner once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The `webhook-signature` header: one `v1,<base64>` per secret (the new and, during a rotation, the old), space-separated. */
export function signWebhook(secrets: readonly string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
