/**
 * DELETE /v1/status/assets/events/{eventId} (admin) — removes an operator's asset status event. A dividend's pause is
 * the catalogue's, not an operator's: it stays (409 EVENT_NOT_DELETABLE).
 */
import { deleteAssetEvent, listCurrentAssetEvents } from '../../../db/queries/operator-controls';
import { defineOperation } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { eventIdParams } from '../../framework/path-params';


export const deleteScheduledEventOperation = defineOperation({
  method: 'delete',
  path: '/v1/status/assets/events/{eventId}',
  operationId: 'deleteAssetStatusEvent',
  summary: 'Delete an asset status event',
  description:
    "Any event an operator made, by its id: scheduled or not, upcoming or active. The pause before a dividend's ex-date (`div_<symbol>_<ex-date>`) follows the catalogue's dividends and cannot be deleted.",
  access: 'admin',
  params: eventIdParams,
  answers: { 204: { description: 'The event is gone.' } },
  errors: ['EVENT_NOT_FOUND', 'EVENT_NOT_DELETABLE'],
  handler: (services) => async (ctx, { params: { eventId } }) => {
    if (!(await deleteAssetEvent(services.db, eventId))) {
      const listed = (await listCurrentAssetEvents(services.db, services.clock())).find((event) => event.eventId === eventId);
      if (listed?.source === 'catalogue') {
        throw new ApiError('EVENT_NOT_DELETABLE', `${eventId} is the pause before a dividend's ex-date, from the catalogue; it cannot be deleted`);
      }
      throw new ApiError('EVENT_NOT_FOUND', `No asset status event ${eventId}`);
    }
    await services.changed('status');
    ctx.status = 204;
  },
});
