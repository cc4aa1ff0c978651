/** POST /v1/status/market/pause (admin) — an operator's market-wide trading pause, with its reason. */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { setMarketPaused } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
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
