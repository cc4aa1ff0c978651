/**
 * POST /v1/webhooks/{webhookId}/enable (write) — enables an endpoint again (after its owner, failures or a 410
 * disabled it): its URL is checked again, its failure record cleared, and its delivery woken.
 */
import { findWebhookEndpoint, setWebhookEndpointState } from '../../../db/queries/webhooks';
import { defineOperation } from '../../contract/operation';
import { endpointView, requireAllowedUrl, requireEndpoint, requireWebhooks } from './context';
import { webhookEndpointSchema, webhookIdParams } from './schemas';

export const enableWebhookOperation = defineOperation({
  method: 'post',
  path: '/v1/webhooks/{webhookId}/enable',
  operationId: 'enableWebhook',
  summary: 'Enable a webhook endpoint',
  description:
    "Enables the endpoint again, whoever disabled it: its URL is checked against the current policy first (the operator's allowed networks may have changed), its failure record is cleared, and its pending deliveries are sent. Deliveries cancelled while it was disabled stay cancelled: replay the ones wanted. Enabling an enabled endpoint changes nothing.",
  access: 'write',
  params: webhookIdParams,
  answers: { 200: { description: 'The endpoint, enabled.', schema: webhookEndpointSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND', 'INVALID_WEBHOOK_URL', 'WEBHOOK_URL_FORBIDDEN'],
  handler: (services) => async (ctx, { params: { webhookId } }) => {
    const webhooks = requireWebhooks(services);
    const endpoint = await requireEndpoint(services, ctx, webhookId);
    if (endpoint.state === 'disabled') {
      await requireAllowedUrl(webhooks, endpoint.url);
      await setWebhookEndpointState(services.db, endpoint.endpointId, { state: 'enabled' });
    }
    ctx.body = endpointView((await findWebhookEndpoint(services.db, 'any', endpoint.endpointId)) ?? endpoint);
  },
});
