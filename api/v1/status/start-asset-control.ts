/**
 * POST /v1/status/assets/{symbol}/pause and /limit (admin) — an operator pauses an asset's trading or limits it
 * (tradable with smaller orders): an unscheduled status event starting now.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { insertAssetEvent, listCurrentAssetEvents, type AssetStatusCode } from '../../../db/queries/operator-controls';
import { readJsonBody } from '../../framework/body';
import { ApiError } from '../../framework/errors';
import { parseBody, parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { assetStatusView } from './asset-statuses';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';

const controlBody = z.strictObject({
  reason: z.string().trim().min(1).max(500),
  /** Optional end, epoch ms; open-ended when absent. */
  end: z.number().int().positive().optional(),
});

/** Starts an unscheduled ASSET_PAUSED or ASSET_LIMITED event now; an identical active one is reused. */
export function startControlRoute(services: ApiServices, code: AssetStatusCode): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(parseParams(symbolParams, ctx.params, SYMBOL_PARAM_CODES).symbol);
    const body = parseBody(controlBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    const now = services.clock();
    if (body.end !== undefined && body.end <= now) {
      throw new ApiError('INVALID_REQUEST_BODY', 'Invalid request body: end: must be in the future');
    }
    const active = (await listCurrentAssetEvents(services.db, now, asset.symbol)).find(
      (event) => event.code === code && event.type === 'unscheduled' && event.startsAt <= now,
    );
    const event =
      active ??
      (await insertAssetEvent(services.db, {
        symbol: asset.symbol,
        code,
        type: 'unscheduled',
        reason: body.reason,
        startsAt: now,
        endsAt: body.end ?? null,
        updateSharesMultiplier: false,
      }));
    await services.changed('status');
    ctx.status = active ? 200 : 201;
    ctx.body = assetStatusView(event, now);
  };
}
