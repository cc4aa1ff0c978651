/** POST /v1/status/market/pause (admin) — an operator's market-wide trading pause, with its reason. */
import { z } from 'zod';
import { setMarketPaused } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
import { defineOperation } from '../../contract/operation';
import { marketStatusView } from './market-status';
import { marketStatusSchema, type MarketStatusAnswer } from './schemas';

const pauseBody = z.strictObject({ reason: z.string().trim().min(1).max(500).describe('Why, as clients will read it in the market status.') });

export const pauseMarketOperation = defineOperation({
  method: 'post',
  path: '/v1/status/market/pause',
  operationId: 'pauseMarket',
  summary: 'Pause the whole market',
  description: 'Attestation requests are refused with `MARKET_PAUSED` until the market is resumed. Pausing a paused market replaces the reason.',
  access: 'admin',
  body: pauseBody,
  answers: { 200: { description: 'The market status, now `paused`.', schema: marketStatusSchema } },
  errors: [],
  handler: (services) => async (ctx, { body: { reason } }) => {
    const state = await setMarketPaused(services.db, true, reason);
    await services.changed('status');
    ctx.body = marketStatusView(marketStatus(services.clock(), state), services.config.PUBLIC_BASE_URL) satisfies MarketStatusAnswer;
  },
});
