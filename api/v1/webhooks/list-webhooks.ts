/** GET /v1/webhooks (write) — the calling account's webhook endpoints (and an admin's, the operators'), never a secret. */
import { listWebhookEndpoints } from '../../../db/queries/webhooks';
import { defineOperation } from '../../contract/operation';
import { endpointView, ownerOf, requireWebhooks } from './context';
import { webhookEndpointListSchema } from './schemas';

export const listWebhooksOperation = defineOperation({
  method: 'get',
  path: '/v1/webhooks',
  operationId: 'listWebhooks',
  summary: "The account's webhook endpoints",
  description: "The calling account's webhook endpoints, oldest first, each with its state and health; with an admin key, the operators' endpoints too. Secrets are never listed.",
  access: 'write',
  answers: { 200: { description: 'The endpoints.', schema: webhookEndpointListSchema } },
  errors: ['WEBHOOKS_UNAVAILABLE'],
  handler: (services) => async (ctx) => {
    requireWebhooks(services);
    ctx.body = { webhooks: (await listWebhookEndpoints(services.db, ownerOf(ctx))).map(endpointView) };
  },
});
