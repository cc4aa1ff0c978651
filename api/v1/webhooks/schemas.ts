/**
 * The webhook routes' schemas: what registering an endpoint takes, an endpoint as its owner reads it (never its
 * secret, except in the answers that make one), its deliveries with their attempts, and the path parameters.
 */
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPE_NAMES, type WebhookEventType } from '../../../domain/webhook-events';
import { epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';
import { parameterText } from '../../framework/parameters';

/** The longest URL an endpoint may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const eventTypes = z.enum(WEBHOOK_EVENT_TYPE_NAMES as [WebhookEventType, ...WebhookEventType[]]);

export const createWebhookBody = z.strictObject({
  url: z.string().max(MAX_WEBHOOK_URL_LENGTH).describe('Where events are POSTed: an absolute `https` URL (plain `http` only where the operator allows it) of a public address.'),
  events: z
    .array(eventTypes)
    .min(1)
    .max(WEBHOOK_EVENT_TYPE_NAMES.length)
    .refine((events) => new Set(events).size === events.length, 'must not repeat an event type')
    .describe("The event types it receives (the document's `webhooks` section lists them): account events (about the calling account's own resources) and, with an admin key, operator events."),
  description: z.string().max(500).optional().describe('A note for its owner.'),
});

export const webhookIdParams = z.object({ webhookId: z.string().regex(/^wh_[0-9a-f]{16}$/, 'must be `wh_` and 16 hexadecimal digits') });

export const deliveryParams = webhookIdParams.extend({ deliveryId: z.string().regex(/^\d{1,18}$/, 'must be a decimal integer') });

export const webhookEndpointSchema = component(
  'WebhookEndpoint',
  z
    .object({
      webhookId: z.string().describe('`wh_` and 16 hexadecimal digits.'),
      url: z.string(),
      events: z.array(eventTypes),
      description: z.string().nullable(),
      audience: z.enum(['account', 'operators']).describe("`account`: events of the account's own attestations, redemptions and partner requests; `operators` (an admin's): the issuer's reserves and review events too."),
      state: z.enum(['enabled', 'disabled']),
      disabledBy: z
        .enum(['owner', 'failures', 'gone'])
        .nullable()
        .describe('Who disabled it: its owner, the failures of its deliveries (for `WEBHOOK_DISABLE_AFTER_MS`), or a `410 Gone` answer; null while enabled.'),
      disabledReason: z.string().nullable().describe('Why it was disabled, e.g. since when it failed and its last failure.'),
      disabledAt: epochMs.nullable(),
      failingSince: epochMs.nullable().describe('Since when no delivery succeeded (its first failure after the last success); null while deliveries succeed.'),
      lastSuccessAt: epochMs.nullable(),
      lastFailure: z.string().nullable().describe("The last failed attempt: the receiver's status or the network error."),
      createdAt: epochMs,
    })
    .describe('A webhook endpoint and its health. Its signing secret is never shown again after it is made.'),
);
export type WebhookEndpointView = z.infer<typeof webhookEndpointSchema>;

const secret = z.string().describe('The signing secret, `whsec_` and base64: shown only in this answer; verify deliveries with it (Standard Webhooks).');

export const webhookEndpointWithSecretSchema = component(
  'WebhookEndpointWithSecret',
  webhookEndpointSchema.extend({ secret }).describe('A new webhook endpoint, with its signing secret (shown once).'),
);

export const webhookSecretRotationSchema = component(
  'WebhookSecretRotation',
  z.object({
    secret,
    previousSecretExpiresAt: epochMs.describe('Until then deliveries carry a signature by the previous secret too, so receivers can switch at their pace.'),
  }),
);

export const webhookEndpointListSchema = component('WebhookEndpointList', z.object({ webhooks: z.array(webhookEndpointSchema).describe('Oldest first.') }));

export const webhookDeliverySchema = component(
  'WebhookDelivery',
  z
    .object({
      deliveryId: z.string().describe('Decimal.'),
      state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).describe('`failed`: its retries are spent; `cancelled`: the endpoint was disabled. Both can be replayed.'),
      event: z.object({
        id: z.string().describe('`evt_<sequence>`: the `webhook-id` of every attempt.'),
        type: eventTypes,
        timestamp: epochMs,
        resource: z.object({ kind: z.enum(['attestation', 'redemption', 'partner_request', 'asset', 'hedge_order']), id: z.string() }),
      }),
      attempts: z.array(
        z.object({
          attempt: z.int().positive(),
          startedAt: epochMs,
          finishedAt: epochMs.nullable(),
          outcome: z
            .enum(['delivered', 'failed', 'interrupted', 'refused'])
            .nullable()
            .describe('null while in flight; `interrupted`: the worker stopped mid-send; `refused`: the URL resolved to a forbidden address.'),
          status: z.int().nullable().describe("The receiver's HTTP status, if it answered."),
          error: z.string().nullable(),
          durationMs: z.int().nonnegative().nullable(),
        }),
      ),
      nextAttemptAt: epochMs.nullable(),
      deliveredAt: epochMs.nullable(),
    })
    .describe('One event sent (or to send) to one endpoint, with its attempts.'),
);
export type WebhookDeliveryView = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryPageSchema = component(
  'WebhookDeliveryPage',
  z.object({
    deliveries: z.array(webhookDeliverySchema).describe('Newest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  }),
);

export const listDeliveriesQuery = z.strictObject({
  state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).optional().describe('Only deliveries in this state.'),
  limit: z.coerce.number().int().min(1).max(100).default(50).describe('Deliveries per page, 1–100.'),
  cursor: parameterText(18).regex(/^\d+$/, 'is not a cursor from a previous page').optional().describe("The previous page's `nextCursor`."),
});
