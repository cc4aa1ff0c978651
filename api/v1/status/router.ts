/** The status resource: market and asset statuses, and the operator controls that change them. */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { assetStatusesRoute } from './asset-statuses';
import { createScheduledEventRoute } from './create-scheduled-event';
import { deleteScheduledEventRoute } from './delete-scheduled-event';
import { endControlRoute } from './end-asset-control';
import { marketStatusRoute } from './market-status';
import { pauseMarketRoute } from './pause-market';
import { resumeMarketRoute } from './resume-market';
import { startControlRoute } from './start-asset-control';

export function statusRouter(services: ApiServices): Router<ApiState> {
  const admin = requireScope('admin');
  return new Router<ApiState>({ prefix: '/status' })
    .get('/market', marketStatusRoute(services))
    .get('/assets', assetStatusesRoute(services))
    .post('/market/pause', admin, pauseMarketRoute(services))
    .post('/market/resume', admin, resumeMarketRoute(services))
    .post('/assets/events', admin, createScheduledEventRoute(services))
    .delete('/assets/events/:eventId', admin, deleteScheduledEventRoute(services))
    .post('/assets/:symbol/pause', admin, startControlRoute(services, 'ASSET_PAUSED'))
    .post('/assets/:symbol/resume', admin, endControlRoute(services, 'ASSET_PAUSED'))
    .post('/assets/:symbol/limit', admin, startControlRoute(services, 'ASSET_LIMITED'))
    .post('/assets/:symbol/unlimit', admin, endControlRoute(services, 'ASSET_LIMITED'));
}
