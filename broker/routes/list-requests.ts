/**
 * GET /v1/accounts/{account_id}/tokenization/requests (participant or issuer) — mint and redeem records, newest
 * first, as a JSON array: a participant's own account's, or, under the issuer's account, every participant's (how
 * the issuer finds a redemption's record: `?issuer_request_id=<id>&type=redeem`). Filters `status`, `type`,
 * `issuer_request_id`, and `limit` (1–500, 100).
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { accountParams } from '../fields';
import type { BrokerState } from '../framework/state';
import { parseParams, parseQuery } from '../framework/validation';
import { listRequests, requestView } from '../queries/requests';
import type { BrokerServices } from '../services';
import { recordsScope, requireAccount } from './context';

const listQuery = z.strictObject({
  status: z.enum(['pending', 'completed', 'rejected'], { error: 'must be pending, completed or rejected' }).optional(),
  type: z.enum(['mint', 'redeem'], { error: 'must be mint or redeem' }).optional(),
  issuer_request_id: z.string().min(1).max(200).optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'must be an integer from 1 to 500')
    .transform(Number)
    .refine((value) => value >= 1 && value <= 500, 'must be an integer from 1 to 500')
    .optional(),
});

export function listRequestsRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const query = parseQuery(listQuery, ctx.query);
    const account = await requireAccount(services.db, ctx, accountId);
    const records = await listRequests(services.db, {
      accountId: recordsScope(account),
      status: query.status,
      type: query.type,
      issuerRequestId: query.issuer_request_id,
      limit: query.limit ?? 100,
    });
    ctx.body = records.map(requestView);
  };
}
