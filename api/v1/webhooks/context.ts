/**
 * What the webhook routes share: their services (or 503), whose endpoints the caller may see, an endpoint found
 * for its owner (or 404), the URL check as API errors, and an endpoint or a delivery as clients read it.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { findWebhookEndpoint, type WebhookDeliveryRecord, type WebhookEndpointRecord, type WebhookOwner } from '../../../db/queries/webhooks';
import { ApiError } from '../../../domain/errors';
import { checkWebhookUrl } from '../../../webhooks/url-guard';
import type { ApiState } from '../../framework/state';
import type { ApiServices, WebhookServices } from '../../services';
import type { WebhookDeliveryView, WebhookEndpointView } from './schemas';

export function requireWebhooks(services: ApiServices): WebhookServices {
  if (!services.webhooks) throw new ApiError('WEBHOOKS_UNAVAILABLE', 'This API process has no webhook secret keys (WEBHOOK_SECRET_KEYS)');
  return services.webhooks;
}

/** The caller's endpoints: its account's, and with an admin key the operators' too (write and admin keys always have an account). */
export function ownerOf(ctx: Context & { state: ApiState }): WebhookOwner {
  const key = ctx.state.apiKey!;
  if (!key.accountId) throw new ApiError('READ_ONLY_API_KEY', 'This API key has no account');
  return { accountId: key.accountId, operators: key.scope === 'admin' };
}

/** The endpoint `webhookId` if the caller may see it; not there and not theirs are the same 404. */
export async function requireEndpoint(services: ApiServices, ctx: Context & { state: ApiState }, webhookId: string): Promise<WebhookEndpointRecord> {
  const endpoint = await findWebhookEndpoint(services.db, ownerOf(ctx), webhookId);
  if (!endpoint) throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook endpoint ${webhookId} for this account`);
  return endpoint;
}

/** Refuses a URL the guard refuses (malformed, not https, credentials, unresolvable: 400 INVALID_WEBHOOK_URL; internal: 400 WEBHOOK_URL_FORBIDDEN). */
export async function requireAllowedUrl(webhooks: WebhookServices, url: string): Promise<void> {
  const verdict = await checkWebhookUrl(url, webhooks.policy, webhooks.resolve);
  if (!verdict.ok) throw new ApiError(verdict.code, verdict.reason);
}

/** A new endpoint id: `wh_` and 16 random hexadecimal digits. */
export function newWebhookId(): string {
  return `wh_${randomBytes(8).toString('hex')}`;
}

export function endpointView(endpoint: WebhookEndpointRecord): WebhookEndpointView {
  return {
    webhookId: endpoint.endpointId,
    url: endpoint.url,
    events: endpoint.eventTypes,
    description: endpoint.description,
    audience: endpoint.audience,
    state: endpoint.state,
    disabledBy: endpoint.disabledBy,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    failingSince: endpoint.failingSince,
    lastSuccessAt: endpoint.lastSuccessAt,
    lastFailure: endpoint.lastFailure,
    createdAt: endpoint.createdAt,
  };
}

export function deliveryView(delivery: WebhookDeliveryRecord): WebhookDeliveryView {
  return {
    deliveryId: delivery.deliveryId,
    state: delivery.state,
    event: delivery.event,
    attempts: delivery.attempts.map(({ attempt, startedAt, finishedAt, outcome, status, error, durationMs }) => ({ attempt, startedAt, finishedAt, outcome, status, error, durationMs })),
    nextAttemptAt: delivery.nextAttemptAt,
    deliveredAt: delivery.deliveredAt,
  };
}
