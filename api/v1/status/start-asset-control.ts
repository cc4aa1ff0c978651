/**
 * POST /v1/status/assets/{symbol}/pause and /limit (admin) — an operator pauses an asset's trading or limits it
 * (tradable with smaller orders): an unscheduled status event starting now.
 */
import { z } from 'zod';
import { insertAssetEvent, listCurrentAssetEvents, type AssetStatusCode } from '../../../db/queries/operator-controls';
import { defineOperation, type Handler } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import type { ApiServices } from '../../services';
import { assetStatusView } from './asset-statuses';
import { assetStatusSchema } from './schemas';

const controlBody = z.strictObject({
  reason: z.string().trim().min(1).max(500).describe('Why, as clients will read it in the status.'),
  /** Optional end, epoch ms; open-ended when absent. */
  end: z.number().int().positive().optional().describe('Epoch ms, in the future; open-ended when absent.'),
});

/** Starts an unscheduled ASSET_PAUSED or ASSET_LIMITED event now; an identical active one is reused. */
function startControlRoute(services: ApiServices, code: AssetStatusCode): Handler<{ params: typeof symbolParams; body: typeof controlBody }> {
  return async (ctx, { params, body }) => {
    const asset = await services.assets.resolve(params.symbol);
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
    ctx.body = assetStatusView(event, now, services.config.PUBLIC_BASE_URL);
  };
}

/** The answers of a pause or a limit: 200 when the operator's control was already active, 201 when it starts now. */
function startAnswers(control: 'pause' | 'limit') {
  return {
    200: { description: `The asset already had an active operator ${control}: that event, unchanged (its reason and end are kept).`, schema: assetStatusSchema },
    201: { description: `The new ${control}, active from now.`, schema: assetStatusSchema },
  };
}

export const pauseAssetOperation = defineOperation({
  method: 'post',
  path: '/v1/status/assets/{symbol}/pause',
  operationId: 'pauseAsset',
  summary: "Pause an asset's trading",
  description: 'An operator pause starting now: attestation requests for the asset are refused with `ASSET_PAUSED` until it is resumed or `end` passes.',
  access: 'admin',
  params: symbolParams,
  body: controlBody,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: startAnswers('pause'),
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => startControlRoute(services, 'ASSET_PAUSED'),
});

export const limitAssetOperation = defineOperation({
  method: 'post',
  path: '/v1/status/assets/{symbol}/limit',
  operationId: 'limitAsset',
  summary: 'Limit an asset to smaller orders',
  description: 'An operator limit starting now: attestation requests over the reduced maximum order size are refused with `MAX_LIMIT_REACHED` (400) until it is lifted or `end` passes.',
  access: 'admin',
  params: symbolParams,
  body: controlBody,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: startAnswers('limit'),
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => startControlRoute(services, 'ASSET_LIMITED'),
});
