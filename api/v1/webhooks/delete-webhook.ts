/** DELETE /v1/webhooks/{webhookId} (write) — removes the endpoint with its deliveries; its delivery stops. */
import { deleteWebhookEndpoint } from '../../../db/queries/webhooks';
import { ApiError } from '../../../domain/errors';
import { defineOperation } from '../../contract/operation';
import { ownerOf, requireWebhooks } from './context';
import { webhookIdParams } from './schemas';

export const deleteWebhookOperation = defineOperation({
  method: 'delete',
  path: '/v1/webhooks/{webhookId}',
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook endpoint',
  description: 'Removes the endpoint, its deliveries and their attempts. A delivery in flight may still arrive once.',
  access: 'write',
  params: webhookIdParams,
  answers: { 204: { description: 'Deleted.' } },
  errors: ['WEBHOOKS_UNAVAILABLE', 'WEBHOOK_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { webhookId } }) => {
    requireWebhooks(services);
    if (!(await deleteWebhookEndpoint(services.db, ownerOf(ctx), webhookId))) throw new ApiError('WEBHOOK_NOT_FOUND', `No webhook endpoint ${webhookId} for this account`);
    ctx.status = 204;
  },
});
