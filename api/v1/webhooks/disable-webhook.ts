/** POST /v1/webhooks/{webhookId}/disable (write) — stops deliveries to the endpoint; its pending ones are cancelled (replayable). */
import { findWebhookEndpoint, setWebhookEndpointState } from '../../../db/queries/webhooks';
import { defineOperation } from '../../contract/operation';
import { endpointView, requireEndpoint, requireWebhooks } from './context';
import { webhookEndpointSchema, webhookIdParams } from './schemas';

export const disableWebhookOperation = defineOperation({
  method: 'post',
  path: '/v1/webhooks/{webhookId}/disable',
  operationId: 'disableWebhook',
  summary: 'Disable a webhook endpoint',
  description:
    'Stops deliveries to the endpoint: its pending deliveries become `cancelled` (each can be replayed once it is enabled again), and events that occur while it is disabled are not queued for it. Disabling a disabled endpoint changes nothing.',
  access: 'write',
  params: webhookIdParams,
  answers: { 200: { description: 'The endpoint, disabled.', schema: webhookEndpointSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { webhookId } }) => {
    requireWebhooks(services);
    const endpoint = await requireEndpoint(services, ctx, webhookId);
    if (endpoint.state === 'enabled') await setWebhookEndpointState(services.db, endpoint.endpointId, { state: 'disabled', by: 'owner', reason: 'Disabled by its owner' });
    ctx.body = endpointView((await findWebhookEndpoint(services.db, 'any', endpoint.endpointId)) ?? endpoint);
  },
});
