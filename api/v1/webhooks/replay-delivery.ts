/**
 * POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay (write) — sends a delivery again (delivered, failed
 * or cancelled): pending at once, with the same event and `webhook-id`, so a receiver that has it deduplicates it.
 */
import { replayWebhookDelivery } from '../../../db/queries/webhooks';
import { ApiError } from '../../../domain/errors';
import { defineOperation } from '../../contract/operation';
import { deliveryView, requireEndpoint, requireWebhooks } from './context';
import { deliveryParams, webhookDeliverySchema } from './schemas';

export const replayDeliveryOperation = defineOperation({
  method: 'post',
  path: '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/replay',
  operationId: 'replayWebhookDelivery',
  summary: 'Send a webhook delivery again',
  description:
    'Puts the delivery back to `pending`, due now, with the same event (the same `webhook-id`, so a receiver that processed it deduplicates it), and wakes the endpoint\'s delivery; its attempts are kept and new ones are added. It is sent after any earlier pending event of the same resource. Refused on a disabled endpoint: enable it first.',
  access: 'write',
  params: deliveryParams,
  answers: { 202: { description: 'The delivery, pending again.', schema: webhookDeliverySchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND', 'DELIVERY_NOT_FOUND', 'WEBHOOK_DISABLED'],
  handler: (services) => async (ctx, { params: { webhookId, deliveryId } }) => {
    requireWebhooks(services);
    const endpoint = await requireEndpoint(services, ctx, webhookId);
    if (endpoint.state === 'disabled') throw new ApiError('WEBHOOK_DISABLED', `Webhook endpoint ${webhookId} is disabled (${endpoint.disabledReason ?? 'no reason recorded'}); enable it first`);
    const delivery = await replayWebhookDelivery(services.db, endpoint.endpointId, deliveryId);
    if (!delivery) throw new ApiError('DELIVERY_NOT_FOUND', `Webhook endpoint ${webhookId} has no delivery ${deliveryId}`);
    ctx.status = 202;
    ctx.body = deliveryView(delivery);
  },
});
