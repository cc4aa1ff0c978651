/** POST /v1/status/market/pause and /resume (admin) — an operator's market-wide trading pause. */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { getMarketState, setMarketPaused } from '../../../db/queries/status';
import { marketStatus } from '../../../domain/status/market-status';
import { readJsonBody } from '../../framework/body';
import { parseBody } from '../../framework/validation';
import type { ApiServices } from '../../services';

const pauseBody = z.strictObject({ reason: z.string().trim().min(1).max(500) });

export function pauseMarketRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { reason } = parseBody(pauseBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    const state = await setMarketPaused(services.db, true, reason);
    await services.changed('status');
    ctx.body = marketStatus(services.clock(), state);
  };
}

export function resumeMarketRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const current = await getMarketState(services.db);
    const state = current.paused ? await setMarketPaused(services.db, false, null) : current;
    await services.changed('status');
    ctx.body = marketStatus(services.clock(), state);
  };
}
