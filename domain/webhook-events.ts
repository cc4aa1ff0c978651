/**
 * The closed catalogue of webhook events: every fact the product pushes to a registered endpoint, who may
 * subscribe to it (an account, for its own resources, or the issuer's operators) and what resource it is about.
 * The database triggers that write events (migration 020), the API that validates subscriptions and documents
 * the payloads, and the delivery workers all read this one table.
 */

export type WebhookAudience = 'account' | 'operators';
export type WebhookResourceKind = 'attestation' | 'redemption' | 'partner_request' | 'asset' | 'hedge_order';

interface WebhookEventDefinition {
  audience: WebhookAudience;
  resource: WebhookResourceKind;
  /** One line for the OpenAPI document's `webhooks` section. */
  description: string;
}

export const WEBHOOK_EVENT_TYPES = {
  'attestation.executing': {
    audience: 'account',
    resource: 'attestation',
    description: "The attestation's execution is on chain, not final yet (also after an expiry, when a late watcher proves an execution in time).",
  },
  'attestation.executed': { audience: 'account', resource: 'attestation', description: "The attestation's execution is final on its chain." },
  'attestation.expired': {
    audience: 'account',
    resource: 'attestation',
    description: 'The attestation expired unexecuted; recorded after its settlement grace (or at once for an off-hours lapse).',
  },
  'attestation.reopened': {
    audience: 'account',
    resource: 'attestation',
    description: 'The block holding the execution left the chain in a reorganisation: the attestation is outstanding again until its expiry.',
  },
  'redemption.awaiting_finality': { audience: 'account', resource: 'redemption', description: 'A burn of the account\'s tokens is on chain, not final yet.' },
  'redemption.cancelled': { audience: 'account', resource: 'redemption', description: 'The burn left the chain in a reorganisation before it was final.' },
  'redemption.pending': { audience: 'account', resource: 'redemption', description: 'The burn is final; the shares are to be delivered.' },
  'redemption.needs_review': { audience: 'account', resource: 'redemption', description: 'The delivery waits for an operator.' },
  'redemption.delivering': { audience: 'account', resource: 'redemption', description: 'The shares are being delivered to the partner account.' },
  'redemption.completed': { audience: 'account', resource: 'redemption', description: 'The shares were delivered.' },
  'redemption.rejected': { audience: 'account', resource: 'redemption', description: 'An operator rejected the delivery.' },
  'partner_request.created': { audience: 'account', resource: 'partner_request', description: 'A partner mint request was accepted.' },
  'partner_request.confirmed': { audience: 'account', resource: 'partner_request', description: "The broker confirmed the shares' transfer to the issuer." },
  'partner_request.minted': { audience: 'account', resource: 'partner_request', description: 'The tokens were minted to the partner\'s wallet, not final yet.' },
  'partner_request.completed': { audience: 'account', resource: 'partner_request', description: 'The request is settled.' },
  'partner_request.awaiting_finality': { audience: 'account', resource: 'partner_request', description: 'A partner burn is on chain, not final yet.' },
  'partner_request.cancelled': { audience: 'account', resource: 'partner_request', description: 'The partner burn left the chain in a reorganisation.' },
  'partner_request.pending': { audience: 'account', resource: 'partner_request', description: 'The partner burn is final; the shares are to be delivered.' },
  'partner_request.needs_review': { audience: 'account', resource: 'partner_request', description: 'The request waits for an operator.' },
  'partner_request.delivering': { audience: 'account', resource: 'partner_request', description: 'The shares are being delivered to the partner account.' },
  'partner_request.rejected': { audience: 'account', resource: 'partner_request', description: 'An operator rejected the request.' },
  'reserves.short': { audience: 'operators', resource: 'asset', description: 'An asset is short of reserves: its attestations and mints are paused.' },
  'reserves.covered': { audience: 'operators', resource: 'asset', description: "An asset's reserves cover its tokens again: the pause is lifted." },
  'review.partner_request': { audience: 'operators', resource: 'partner_request', description: 'A partner request needs an operator (resume or reject).' },
  'review.hedge_order': { audience: 'operators', resource: 'hedge_order', description: 'A hedge order needs an operator.' },
} as const satisfies Record<string, WebhookEventDefinition>;

export type WebhookEventType = keyof typeof WEBHOOK_EVENT_TYPES;

export const WEBHOOK_EVENT_TYPE_NAMES = Object.keys(WEBHOOK_EVENT_TYPES) as WebhookEventType[];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return Object.hasOwn(WEBHOOK_EVENT_TYPES, value);
}

/** The public id of an event (`webhook-id`): stable across attempts and replays, so receivers deduplicate by it. */
export function webhookEventId(sequence: string): string {
  return `evt_${sequence}`;
}

/** What an endpoint receives: the body of each delivery. */
export interface WebhookEnvelope<T extends WebhookEventType = WebhookEventType, D = unknown> {
  /** `evt_<sequence>`, the same as the `webhook-id` header. */
  id: string;
  type: T;
  /** Epoch milliseconds: when the fact became true (its transaction). */
  timestamp: number;
  resource: { kind: WebhookResourceKind; id: string };
  /** Decimal string: orders the events of one resource (and is unique across all). */
  sequence: string;
  /** The resource as it stood at that moment, in the shape of its API answer. */
  data: D;
}
