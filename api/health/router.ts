/**
 * Liveness and readiness for supervisors and load balancers, outside /v1 and without a key:
 * `GET /health` answers while the process serves requests; `GET /ready` is 503 while PostgreSQL, Temporal or
 * another registered dependency is down, and names each one's state.
 */
import Router from '@koa/router';
import type { ApiState } from '../framework/state';
import type { ApiServices } from '../services';
import { checkReadiness } from './readiness';

export function healthRouter(services: ApiServices): Router<ApiState> {
  return new Router<ApiState>()
    .get('/health', (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { status: 'ok' };
    })
    .get('/ready', async (ctx) => {
      const { ready, checks } = await checkReadiness({ db: services.db, temporal: services.temporal, extra: services.readinessChecks });
      ctx.set('Cache-Control', 'no-store');
      if (!ready) ctx.set('Retry-After', '5');
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'not ready', checks };
    });
}
