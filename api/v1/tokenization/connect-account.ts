/**
 * POST /v1/tokenization/accounts/connect (partner) `{email, account}` — the partner links its account (`account`, the
 * partner's account number) to the client onboarded with `email`: `{client_id}`. 404 CLIENT_NOT_FOUND for an
 * unknown email, 409 ACCOUNT_ALREADY_LINKED when either side is linked to another; the same pair again answers the
 * same client id.
 */
import type { Middleware } from 'koa';
import { connectPartnerAccount } from '../../../db/queries/partner';
import { readJsonBody } from '../../framework/body';
import { ApiError } from '../../framework/errors';
import { parseBody } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { connectBody } from './fields';

export function connectAccountRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const body = parseBody(connectBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    const outcome = await connectPartnerAccount(services.db, body);
    if (outcome.outcome === 'unknown_email') throw new ApiError('CLIENT_NOT_FOUND', `No client is onboarded with email ${body.email}`);
    if (outcome.outcome === 'already_linked') {
      throw new ApiError('ACCOUNT_ALREADY_LINKED', `The client with email ${body.email}, or account ${body.account}, is already linked to another`);
    }
    ctx.body = { client_id: outcome.client.clientId };
  };
}
