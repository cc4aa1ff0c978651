/** POST /v1/status/market/resume (admin) — ends the market-wide pause; resuming a running market changes nothing. */
import type { Middleware } from 'koa';
import { getMarketState, setMarketPaused } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
import type { ApiServices } from '../../services';

export function resumeMarketRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const current = await getMarketState(services.db);
    const state = current.paused ? await setMarketPaused(services.db, false, null) : current;
    await services.changed('status');
    ctx.body = marketStatus(services.clock(), state);
  };
}
