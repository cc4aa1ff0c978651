/**
 * GET /v1/accounts/{account_id}/tokenization/requests/{tokenization_request_id} (participant or issuer) — one record:
 * of the participant's own account, or, under the issuer's account, any participant's.
 */
import type { Middleware } from 'koa';
import { BrokerError } from '../errors';
import { requestParams } from '../fields';
import type { BrokerState } from '../framework/state';
import { parseParams } from '../framework/validation';
import { findRequest, requestView } from '../queries/requests';
import type { BrokerServices } from '../services';
import { recordsScope, requireAccount } from './context';

export function getRequestRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId, tokenization_request_id: requestId } = parseParams(requestParams, ctx.params);
    const scope = recordsScope(await requireAccount(services.db, ctx, accountId));
    const record = await findRequest(services.db, requestId);
    if (!record || (scope !== undefined && record.accountId !== scope)) {
      throw new BrokerError('REQUEST_NOT_FOUND', `No tokenization request ${requestId} in account ${accountId}`);
    }
    ctx.body = requestView(record);
  };
}
