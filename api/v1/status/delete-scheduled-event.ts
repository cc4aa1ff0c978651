/** DELETE /v1/status/assets/events/{eventId} (admin) — removes a scheduled asset status window. */
import { deleteAssetEvent } from '../../../db/queries/operator-controls';
import { defineOperation } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { eventIdParams } from '../../framework/path-params';


export const deleteScheduledEventOperation = defineOperation({
  method: 'delete',
  path: '/v1/status/assets/events/{eventId}',
  operationId: 'deleteAssetStatusEvent',
  summary: 'Delete an asset status event',
  description: 'Any event by its id: scheduled or set by an operator, upcoming or active.',
  access: 'admin',
  params: eventIdParams,
  answers: { 204: { description: 'The event is gone.' } },
  errors: ['EVENT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { eventId } }) => {
    if (!(await deleteAssetEvent(services.db, eventId))) {
      throw new ApiError('EVENT_NOT_FOUND', `No asset status event ${eventId}`);
    }
    await services.changed('status');
    ctx.status = 204;
  },
});
