/** GET /v1/reserves/history?underlying=&from=&to=&limit= — stored reserve snapshots of one underlying, newest first. */
import { z } from 'zod';
import { reserveHistory } from '../../../db/queries/reserves';
import { defineOperation } from '../../contract/operation';
import { instantParameter } from '../../framework/parameters';
import { reserveHistorySchema, type ReserveHistory } from './schemas';

const historyQuery = z.object({
  underlying: z.string().regex(/^[A-Z][A-Z0-9.]{0,9}$/, 'must be an underlying ticker such as AAPL').describe('The underlying, e.g. `AAPL`.'),
  from: instantParameter.optional().describe('Snapshots at or after this (epoch ms or ISO-8601); default 24 hours before `to`.'),
  to: instantParameter.optional().describe('Snapshots before this (epoch ms or ISO-8601); default now.'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many; default 100.'),
});

export const reserveHistoryOperation = defineOperation({
  method: 'get',
  path: '/v1/reserves/history',
  operationId: 'getReserveHistory',
  summary: 'Reserve snapshots of one underlying',
  description: 'The stored computations of one underlying between `from` and `to`, newest first, each as `GET /v1/reserves` showed it then.',
  access: 'read',
  query: historyQuery,
  answers: { 200: { description: 'The snapshots.', schema: reserveHistorySchema } },
  errors: [],
  handler: (services) => async (ctx, { query }) => {
    const to = query.to ?? services.clock();
    const from = query.from ?? to - 86_400_000;
    const snapshots = await reserveHistory(services.db, { underlying: query.underlying, from, to, limit: query.limit });
    ctx.body = { underlying: query.underlying, snapshots: snapshots.map(({ takenAt, asset }) => ({ ...asset, timestamp: takenAt })) } satisfies ReserveHistory;
  },
});
