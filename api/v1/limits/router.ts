/** The limits resource: static session limits and each user's real-time trading limits. */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { sessionLimitsRoute } from './session-limits';
import { tradingLimitsRoute } from './trading-limits';
import { updateSessionLimitRoute } from './update-session-limit';

export function limitsRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>({ prefix: '/limits' })
    .get('/session', sessionLimitsRoute(services))
    .get('/trading', tradingLimitsRoute(services))
    .put('/session/:symbol/:session', requireScope('admin'), updateSessionLimitRoute(services));
}
