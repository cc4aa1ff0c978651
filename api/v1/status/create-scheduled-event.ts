/**
 * POST /v1/status/assets/events (admin) — schedules an asset status window such as a cash dividend, a stock
 * split or maintenance.
 */
import { z } from 'zod';
import { ASSET_STATUS_CODES, insertAssetEvent } from '../../../db/queries/operator-controls';
import { defineOperation } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { assetStatusView } from './asset-statuses';
import { assetStatusSchema } from './schemas';

export const EVENT_REASONS = ['cash_dividend', 'stock_split', 'reverse_split', 'merger', 'spin_off', 'earnings', 'maintenance', 'other'] as const;

const eventBody = z
  .strictObject({
    symbol: z.string().describe('The token.'),
    code: z.enum(ASSET_STATUS_CODES).describe('Paused (no orders), limited (smaller orders) or redeem-only (sells only) during the window.'),
    reason: z.enum(EVENT_REASONS),
    start: z.number().int().positive().describe('Epoch ms.'),
    end: z.number().int().positive().describe('Epoch ms; after `start` and in the future.'),
    updateSharesMultiplier: z.boolean().default(false).describe('Whether the event changes the shares multiplier; default false.'),
  })
  .refine((event) => event.end > event.start, { path: ['end'], message: 'must be after start' });

export const createScheduledEventOperation = defineOperation({
  method: 'post',
  path: '/v1/status/assets/events',
  operationId: 'scheduleAssetStatusEvent',
  summary: 'Schedule an asset status window',
  description: 'A pause, limit or redeem-only window of one asset between `start` and `end`, for a cash dividend, a stock split, maintenance and the like.',
  access: 'admin',
  body: eventBody,
  answers: { 201: { description: 'The scheduled event (`upcoming` until `start`).', schema: assetStatusSchema } },
  errors: ['INVALID_SYMBOL', 'ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { body }) => {
    const asset = await services.assets.resolve(body.symbol);
    const now = services.clock();
    if (body.end <= now) throw new ApiError('INVALID_REQUEST_BODY', 'Invalid request body: end: must be in the future');
    const event = await insertAssetEvent(services.db, {
      symbol: asset.symbol,
      code: body.code,
      type: 'scheduled',
      reason: body.reason,
      startsAt: body.start,
      endsAt: body.end,
      updateSharesMultiplier: body.updateSharesMultiplier,
    });
    await services.changed('status');
    ctx.status = 201;
    ctx.body = assetStatusView(event, now, services.config.PUBLIC_BASE_URL);
  },
});
