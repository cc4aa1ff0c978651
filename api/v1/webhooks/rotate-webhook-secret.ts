/**
 * POST /v1/webhooks/{webhookId}/rotate-secret (write) — a new signing secret, shown once; the old one keeps
 * signing beside it for a day, so the receiver can switch without losing a delivery.
 */
import { rotateWebhookSecret } from '../../../db/queries/webhooks';
import { newWebhookSecret } from '../../../webhooks/signing';
import { defineOperation } from '../../contract/operation';
import { requireEndpoint, requireWebhooks } from './context';
import { webhookIdParams, webhookSecretRotationSchema } from './schemas';

/** How long the secret before a rotation keeps signing deliveries. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 3_600_000;

export const rotateWebhookSecretOperation = defineOperation({
  method: 'post',
  path: '/v1/webhooks/{webhookId}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  summary: "Rotate a webhook endpoint's secret",
  description:
    "Makes a new signing secret, shown only in this answer. For 24 hours every delivery carries two signatures in `webhook-signature`, by the new secret and by the previous one, so a receiver verifying with either accepts it; then only the new one signs. A second rotation within those hours drops the secret before the previous one.",
  access: 'write',
  params: webhookIdParams,
  answers: { 200: { description: 'The new secret, and until when the previous one still signs.', schema: webhookSecretRotationSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { webhookId } }) => {
    const webhooks = requireWebhooks(services);
    const endpoint = await requireEndpoint(services, ctx, webhookId);
    const secret = newWebhookSecret();
    const previousSecretExpiresAt = services.clock() + PREVIOUS_SECRET_VALIDITY_MS;
    await rotateWebhookSecret(services.db, endpoint.endpointId, webhooks.secrets.seal(endpoint.endpointId, secret), previousSecretExpiresAt);
    ctx.body = { secret, previousSecretExpiresAt };
  },
});
