/** POST /v1/status/market/resume (admin) — ends the market-wide pause; resuming a running market changes nothing. */
import { getMarketState, setMarketPaused } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
import { defineOperation } from '../../contract/operation';
import { marketStatusView } from './market-status';
import { marketStatusSchema, type MarketStatusAnswer } from './schemas';

export const resumeMarketOperation = defineOperation({
  method: 'post',
  path: '/v1/status/market/resume',
  operationId: 'resumeMarket',
  summary: 'Resume the market',
  description: 'Ends the market-wide pause; resuming a running market changes nothing.',
  access: 'admin',
  answers: { 200: { description: 'The market status: the current session again.', schema: marketStatusSchema } },
  errors: [],
  handler: (services) => async (ctx) => {
    const current = await getMarketState(services.db);
    const state = current.paused ? await setMarketPaused(services.db, false, null) : current;
    await services.changed('status');
    ctx.body = marketStatusView(marketStatus(services.clock(), state), services.config.PUBLIC_BASE_URL) satisfies MarketStatusAnswer;
  },
});
