/**
 * POST /v1/webhooks (write) — registers an endpoint for the calling account's events (or, with an admin key, the
 * operators'), its URL checked against the SSRF policy, and answers its signing secret: the only time it is shown.
 * `Idempotency-Key` makes a retry answer the same endpoint and secret.
 */
import { createHash } from 'node:crypto';
import { countWebhookEndpoints, insertWebhookEndpoint, listWebhookEndpoints, type WebhookEndpointRecord } from '../../../db/queries/webhooks';
import { ApiError } from '../../../domain/errors';
import { WEBHOOK_EVENT_TYPES, type WebhookAudience, type WebhookEventType } from '../../../domain/webhook-events';
import { newWebhookSecret } from '../../../webhooks/signing';
import { defineOperation } from '../../contract/operation';
import { idempotencyKeyHeader, idempotencyKeyOf } from '../../framework/idempotency-key';
import type { WebhookServices } from '../../services';
import { endpointView, newWebhookId, ownerOf, requireAllowedUrl, requireWebhooks } from './context';
import { createWebhookBody, webhookEndpointWithSecretSchema } from './schemas';

/** An endpoint listing an operator event is the operators' (an admin's, which may list its account's events too). */
function audienceOf(events: readonly WebhookEventType[], admin: boolean): WebhookAudience {
  if (!events.some((type) => WEBHOOK_EVENT_TYPES[type].audience === 'operators')) return 'account';
  if (!admin) throw new ApiError('ADMIN_SCOPE_REQUIRED', 'Operator events (reserves, review) need an API key with the admin scope');
  return 'operators';
}

/** The same registration in any JSON spelling hashes the same. */
function requestHash(body: { url: string; events: readonly string[]; description?: string }): string {
  return createHash('sha256').update(JSON.stringify([body.url, [...body.events].sort(), body.description ?? null])).digest('hex');
}

/** The endpoint an earlier request with this key made, with its secret, or a refusal when that request was another. */
function replayed(webhooks: WebhookServices, endpoint: WebhookEndpointRecord, hash: string) {
  if (endpoint.requestHash !== hash) throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
  return { ...endpointView(endpoint), secret: webhooks.secrets.open(endpoint.endpointId, endpoint.secret) };
}

export const createWebhookOperation = defineOperation({
  method: 'post',
  path: '/v1/webhooks',
  operationId: 'createWebhook',
  summary: 'Register a webhook endpoint',
  description:
    "Registers a URL to which the events named in `events` are POSTed as they become true, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the secret this answer shows once. Account events are about the calling account's own attestations, redemptions and partner requests; operator events (reserves, review) need an admin key. The URL must be `https` (plain `http` only where the operator allows it) and resolve to public addresses only, unless the operator allows a network (`WEBHOOK_ALLOWED_NETWORKS`); it is checked again at every delivery.",
  access: 'write',
  retry: 'idempotency-key',
  headers: idempotencyKeyHeader('the endpoint the first request registered, with its secret'),
  body: createWebhookBody,
  fieldCodes: { url: 'INVALID_WEBHOOK_URL', events: 'INVALID_EVENT_TYPE' },
  answers: {
    200: {
      description: 'The endpoint an earlier request with the same `Idempotency-Key` registered, with its secret.',
      schema: webhookEndpointWithSecretSchema,
      headers: { 'Idempotent-Replayed': '`true`: the endpoint an earlier request with the same `Idempotency-Key` registered.' },
    },
    201: { description: 'The endpoint, enabled, with its signing secret: store it now, it is not shown again.', schema: webhookEndpointWithSecretSchema },
  },
  errors: [
    'WEBHOOKS_UNAVAILABLE',
    'INVALID_IDEMPOTENCY_KEY',
    'WEBHOOK_URL_FORBIDDEN',
    'WEBHOOK_LIMIT_REACHED',
    'ADMIN_SCOPE_REQUIRED',
    'IDEMPOTENCY_KEY_REUSED',
  ],
  handler: (services) => async (ctx, { body }) => {
    const webhooks = requireWebhooks(services);
    const idempotencyKey = idempotencyKeyOf(ctx);
    const owner = ownerOf(ctx);
    const audience = audienceOf(body.events, owner.operators);
    const hash = requestHash(body);
    const earlier = idempotencyKey === undefined ? undefined : (await listWebhookEndpoints(services.db, owner)).find((endpoint) => endpoint.accountId === owner.accountId && endpoint.idempotencyKey === idempotencyKey);
    if (earlier) {
      ctx.set('Idempotent-Replayed', 'true');
      ctx.body = replayed(webhooks, earlier, hash);
      return;
    }
    const count = await countWebhookEndpoints(services.db, owner.accountId);
    if (count >= webhooks.maxEndpointsPerAccount) {
      throw new ApiError('WEBHOOK_LIMIT_REACHED', `This account already has ${count} webhook endpoints, the most it may have (${webhooks.maxEndpointsPerAccount}); delete one first`);
    }
    await requireAllowedUrl(webhooks, body.url);
    const endpointId = newWebhookId();
    const secret = newWebhookSecret();
    const { created, endpoint } = await insertWebhookEndpoint(services.db, {
      endpointId,
      accountId: owner.accountId,
      audience,
      url: body.url,
      eventTypes: body.events,
      description: body.description ?? null,
      secret: webhooks.secrets.seal(endpointId, secret),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey, requestHash: hash }),
    });
    if (!created) {
      // Two first requests with one key raced: the loser answers the winner's endpoint.
      ctx.set('Idempotent-Replayed', 'true');
      ctx.body = replayed(webhooks, endpoint, hash);
      return;
    }
    ctx.status = 201;
    ctx.body = { ...endpointView(endpoint), secret };
  },
});
