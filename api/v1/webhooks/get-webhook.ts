/** GET /v1/webhooks/{webhookId} (write) — one endpoint with its state and, when it fails or was disabled, why. */
import { defineOperation } from '../../contract/operation';
import { endpointView, requireEndpoint, requireWebhooks } from './context';
import { webhookEndpointSchema, webhookIdParams } from './schemas';

export const getWebhookOperation = defineOperation({
  method: 'get',
  path: '/v1/webhooks/{webhookId}',
  operationId: 'getWebhook',
  summary: 'One webhook endpoint',
  description:
    'The endpoint with its health: since when its deliveries fail (`failingSince`), its last failure and last success, and, once disabled, by whom (`disabledBy`: its owner, failures for too long, or a `410 Gone`) and why (`disabledReason`). Never its secret.',
  access: 'write',
  params: webhookIdParams,
  answers: { 200: { description: 'The endpoint.', schema: webhookEndpointSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { webhookId } }) => {
    requireWebhooks(services);
    ctx.body = endpointView(await requireEndpoint(services, ctx, webhookId));
  },
});
