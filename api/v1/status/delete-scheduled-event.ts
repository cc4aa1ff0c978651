/** DELETE /v1/status/assets/events/{eventId} (admin) — removes a scheduled asset status window. */
import type { Middleware } from 'koa';
import { deleteAssetEvent } from '../../../db/queries/operator-controls';
import { ApiError } from '../../framework/errors';
import { eventIdParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';

export function deleteScheduledEventRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { eventId } = parseParams(eventIdParams, ctx.params);
    if (!(await deleteAssetEvent(services.db, eventId))) {
      throw new ApiError('EVENT_NOT_FOUND', `No asset status event ${eventId}`);
    }
    await services.changed('status');
    ctx.status = 204;
  };
}
