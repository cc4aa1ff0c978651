/**
 * Operator controls of one asset (admin): pause/resume trading and mark/unmark it limited
 * (tradable with smaller orders). Each is an unscheduled status event starting now.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { endUnscheduledEvents, insertAssetEvent, listCurrentAssetEvents, type AssetStatusCode } from '../../../db/queries/status';
import { readJsonBody } from '../../framework/body';
import { ApiError } from '../../framework/errors';
import { parseBody } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { assetStatusView } from './asset-statuses';

const controlBody = z.strictObject({
  reason: z.string().trim().min(1).max(500),
  /** Optional end, epoch ms; open-ended when absent. */
  end: z.number().int().positive().optional(),
});

/** Starts an unscheduled ASSET_PAUSED or ASSET_LIMITED event now; an identical active one is reused. */
export function startControlRoute(services: ApiServices, code: AssetStatusCode): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(ctx.params.symbol);
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

/** Ends the asset's active unscheduled events of `code`; answers the asset's remaining statuses. */
export function endControlRoute(services: ApiServices, code: AssetStatusCode): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(ctx.params.symbol);
    const now = services.clock();
    const ended = await endUnscheduledEvents(services.db, asset.symbol, code, now);
    await services.changed('status');
    const remaining = await listCurrentAssetEvents(services.db, now, asset.symbol);
    ctx.body = { ended, statuses: remaining.map((event) => assetStatusView(event, now)) };
  };
}
