/** The market-data resource: ingestion of real prices (admin). */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { ingestTicksRoute } from './ingest-ticks';

export function marketDataRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>({ prefix: '/market-data' }).post('/ticks', requireScope('admin'), ingestTicksRoute(services));
}
