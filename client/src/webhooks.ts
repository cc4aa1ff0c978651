/**
 * Receiving the API's webhooks: each request is signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's secret. `verifyWebhook` checks the signature and the timestamp (5 minutes'
 * tolerance) against the raw body, and gives the envelope. During a rotation the API signs with both secrets and
 * either verifies: give the new one and the old. The same `webhook-id` (`evt_<seq>`) may come more than once
 * (delivery is at least once): deduplicate on it.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './generated/api.ts';

type Schemas = { [K in keyof webhooks]: webhooks[K] extends { post: { requestBody?: { content: { 'application/json': infer B } } } } ? B : never }[keyof webhooks];

/** What the API sends: `{id, type, timestamp, resource: {kind, id}, sequence, data}`. */
export type WebhookEvent = [Schemas] extends [never]
  ? { id: string; type: string; timestamp: number; resource: { kind: string; id: string }; sequence: string; data: unknown }
  : Schemas;

export { WebhookVerificationError };

/** The headers of the request, as a plain object or a `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * Verifies a webhook request's signature with any of `secrets` (`whsec_…`) and returns its event; throws
 * `WebhookVerificationError` when none verifies or the timestamp is too old or too new.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secrets: string | readonly string[]): WebhookEvent {
  const payload = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const signed = { 'webhook-id': header(headers, 'webhook-id'), 'webhook-timestamp': header(headers, 'webhook-timestamp'), 'webhook-signature': header(headers, 'webhook-signature') };
  let failure: unknown = new WebhookVerificationError('no secret given');
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    try {
      return new Webhook(secret).verify(payload, signed) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
