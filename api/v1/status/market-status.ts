/** GET /v1/status/market — the current session, or `paused` when an operator paused the market. */
import { getMarketState } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { marketStatusSchema, type MarketStatusAnswer } from './schemas';

export const marketStatusOperation = defineOperation({
  method: 'get',
  path: '/v1/status/market',
  operationId: 'getMarketStatus',
  summary: 'Market status',
  description: 'The current session by the US equities calendar, or `paused` while an operator paused the whole market, with the next open and close.',
  access: 'read',
  answers: { 200: { description: 'The market status.', schema: marketStatusSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'status', key: 'market', ttlMs: 1_000 }, async (): Promise<MarketStatusAnswer> =>
      marketStatus(services.clock(), await getMarketState(services.db)),
    );
  },
});
