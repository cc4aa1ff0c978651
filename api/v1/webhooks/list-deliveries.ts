/**
 * GET /v1/webhooks/{webhookId}/deliveries (write) — the endpoint's deliveries, newest first, each with its event
 * and its attempts: what was sent, when, and what the receiver answered.
 */
import { listWebhookDeliveries } from '../../../db/queries/webhooks';
import { defineOperation } from '../../contract/operation';
import { deliveryView, requireEndpoint, requireWebhooks } from './context';
import { listDeliveriesQuery, webhookDeliveryPageSchema, webhookIdParams } from './schemas';

export const listDeliveriesOperation = defineOperation({
  method: 'get',
  path: '/v1/webhooks/{webhookId}/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: "A webhook endpoint's deliveries",
  description:
    "The endpoint's deliveries, newest first, each with its event (`id`, the `webhook-id` of every attempt; type; resource) and every attempt (when, the outcome, the receiver's status or the error, how long it took). Filter by `state`; page with `limit` and the previous page's `nextCursor`. Deliveries are kept for `WEBHOOK_RETENTION_DAYS` once finished.",
  access: 'write',
  params: webhookIdParams,
  query: listDeliveriesQuery,
  answers: { 200: { description: 'One page of deliveries.', schema: webhookDeliveryPageSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { webhookId }, query }) => {
    requireWebhooks(services);
    const endpoint = await requireEndpoint(services, ctx, webhookId);
    const rows = await listWebhookDeliveries(services.db, endpoint.endpointId, { state: query.state, after: query.cursor, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    ctx.body = { deliveries: page.map(deliveryView), nextCursor: rows.length > query.limit ? page.at(-1)!.deliveryId : null };
  },
});
