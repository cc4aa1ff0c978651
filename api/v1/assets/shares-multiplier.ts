/** GET /v1/assets/{symbol}/shares-multiplier?range — one entry per multiplier change within the range. */
import { z } from 'zod';
import { listMultiplierChanges } from '../../../db/queries/corporate-actions';
import { RANGES } from '../../../domain/market/candles';
import { respondCached } from '../respond';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { sharesMultiplierSchema, type SharesMultiplierHistory } from './schemas';

const DAY_MS = 86_400_000;
const RANGE_MS: Record<(typeof RANGES)[number], number> = {
  '1day': DAY_MS,
  '1month': 30 * DAY_MS,
  '3month': 90 * DAY_MS,
  '6month': 180 * DAY_MS,
  '1year': 365 * DAY_MS,
  all: Number.POSITIVE_INFINITY,
};

/** `range` defaults to `all`. */
const multiplierQuery = z.object({ range: z.enum(RANGES).default('all').describe('How far back; default `all`.') });

export const sharesMultiplierOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/shares-multiplier',
  operationId: 'getSharesMultiplierHistory',
  summary: 'Shares-multiplier history of one asset',
  description: 'One entry per change of the multiplier within the range; corporate actions that leave it unchanged have none.',
  access: 'read',
  params: symbolParams,
  query: multiplierQuery,
  fieldCodes: { ...SYMBOL_PARAM_CODES, range: 'INVALID_RANGE' },
  answers: { 200: { description: 'The changes, oldest first.', schema: sharesMultiplierSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params, query: { range } }) => {
    const asset = await services.assets.resolve(params.symbol);
    await respondCached(ctx, services, { tag: 'corporate-actions', key: `multiplier:${asset.symbol}:${range}`, ttlMs: 1_000 }, async (): Promise<SharesMultiplierHistory> => {
      const now = services.clock();
      const history = await listMultiplierChanges(services.db, {
        symbol: asset.symbol,
        from: range === 'all' ? 0 : now - RANGE_MS[range],
        until: now,
      });
      return { history, timestamp: now };
    });
  },
});
