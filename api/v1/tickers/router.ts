/** The tickers resource. */
import Router from '@koa/router';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { tickersRoute } from './tickers';

export function tickersRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>({ prefix: '/tickers' }).get('/', tickersRoute(services));
}
