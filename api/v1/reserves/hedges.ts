/**
 * GET /v1/reserves/hedges?underlying=&state=&limit= (admin) — what operators watch of the hedges: each final
 * attestation trade with its order's fill price and the slippage against the attested price, the orders (`state=review`:
 * rejected for good, with the broker's reason; `pending` with why they wait), and the assets paused for their reserves.
 */
import { z } from 'zod';
import { listHedgeOrders, listHedgeTrades } from '../../../db/queries/hedging';
import { listReservePauses } from '../../../db/queries/reserves';
import { defineOperation } from '../../contract/operation';
import { hedgesSchema, type Hedges } from './schemas';

const hedgesQuery = z.object({
  underlying: z.string().regex(/^[A-Z][A-Z0-9.]{0,9}$/, 'must be an underlying ticker such as AAPL').optional().describe('Only the trades of this underlying.'),
  state: z.enum(['pending', 'filled', 'canceled', 'review']).optional().describe('Only orders in this state.'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many trades and orders each; default 100.'),
});

export const hedgesOperation = defineOperation({
  method: 'get',
  path: '/v1/reserves/hedges',
  operationId: 'listHedges',
  summary: 'Hedges, their slippage, orders in review and reserve pauses',
  description:
    'Every final attestation trade with the order that hedged it, its fill price and the slippage against the attested price; the hedge orders (those in `review` were rejected for good by the broker, with its reason); the assets whose minting is paused because their reserves are short.',
  access: 'admin',
  query: hedgesQuery,
  answers: { 200: { description: 'Trades, orders and pauses, newest first.', schema: hedgesSchema } },
  errors: [],
  handler: (services) => async (ctx, { query }) => {
    const [trades, orders, pauses] = await Promise.all([
      listHedgeTrades(services.db, { underlying: query.underlying, limit: query.limit }),
      listHedgeOrders(services.db, { state: query.state, limit: query.limit }),
      listReservePauses(services.db),
    ]);
    ctx.body = { trades, orders, pauses } satisfies Hedges;
  },
});
