/** POST /v1/status/assets/{symbol}/resume and /unlimit (admin) — ends an asset's operator pause or limit. */
import { endUnscheduledEvents, listCurrentAssetEvents, type AssetStatusCode } from '../../../db/queries/operator-controls';
import { defineOperation, type Handler } from '../../contract/operation';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import type { ApiServices } from '../../services';
import { assetStatusView } from './asset-statuses';
import { assetControlEndSchema, type AssetControlEnd } from './schemas';

/** Ends the asset's active unscheduled events of `code`; answers the asset's remaining statuses. */
function endControlRoute(services: ApiServices, code: AssetStatusCode): Handler<{ params: typeof symbolParams }> {
  return async (ctx, { params }) => {
    const asset = await services.assets.resolve(params.symbol);
    const now = services.clock();
    const ended = await endUnscheduledEvents(services.db, asset.symbol, code, now);
    await services.changed('status');
    const remaining = await listCurrentAssetEvents(services.db, now, asset.symbol);
    ctx.body = { ended, statuses: remaining.map((event) => assetStatusView(event, now, services.config.PUBLIC_BASE_URL)) } satisfies AssetControlEnd;
  };
}

export const resumeAssetOperation = defineOperation({
  method: 'post',
  path: '/v1/status/assets/{symbol}/resume',
  operationId: 'resumeAsset',
  summary: "Resume an asset's trading",
  description: 'Ends the active operator pauses of the asset; scheduled windows are not touched. Resuming an asset that is not paused changes nothing.',
  access: 'admin',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'How many pauses ended, and the statuses the asset still has.', schema: assetControlEndSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => endControlRoute(services, 'ASSET_PAUSED'),
});

export const unlimitAssetOperation = defineOperation({
  method: 'post',
  path: '/v1/status/assets/{symbol}/unlimit',
  operationId: 'unlimitAsset',
  summary: "Lift an asset's limit",
  description: 'Ends the active operator limits of the asset; scheduled windows are not touched. Lifting a limit that is not there changes nothing.',
  access: 'admin',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'How many limits ended, and the statuses the asset still has.', schema: assetControlEndSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => endControlRoute(services, 'ASSET_LIMITED'),
});
