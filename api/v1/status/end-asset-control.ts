/** POST /v1/status/assets/{symbol}/resume and /unlimit (admin) — ends an asset's operator pause or limit. */
import type { Middleware } from 'koa';
import { endUnscheduledEvents, listCurrentAssetEvents, type AssetStatusCode } from '../../../db/queries/operator-controls';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { assetStatusView } from './asset-statuses';

/** Ends the asset's active unscheduled events of `code`; answers the asset's remaining statuses. */
export function endControlRoute(services: ApiServices, code: AssetStatusCode): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(parseParams(symbolParams, ctx.params, SYMBOL_PARAM_CODES).symbol);
    const now = services.clock();
    const ended = await endUnscheduledEvents(services.db, asset.symbol, code, now);
    await services.changed('status');
    const remaining = await listCurrentAssetEvents(services.db, now, asset.symbol);
    ctx.body = { ended, statuses: remaining.map((event) => assetStatusView(event, now)) };
  };
}
