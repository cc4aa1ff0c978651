/**
 * POST /v1/tokenization/accounts/connect (partner) `{email, account}` — the partner links its account (`account`, the
 * partner's account number) to the client onboarded with `email`: `{client_id}`. 404 CLIENT_NOT_FOUND for an
 * unknown email, 409 ACCOUNT_ALREADY_LINKED when either side is linked to another; the same pair again answers the
 * same client id.
 */
import { connectPartnerAccount } from '../../../db/queries/partner-clients';
import { ApiError } from '../../../domain/errors';
import { connectBody } from './fields';
import { defineOperation } from '../../contract/operation';
import { connectedAccountSchema, type PartnerConnection } from './schemas';

export const connectAccountOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/accounts/connect',
  operationId: 'connectPartnerAccount',
  summary: "Link the partner's account to an onboarded client",
  description:
    "Links the partner's account number (`account`) to the client the issuer onboarded with `email` and answers the client's id, which the partner then sends as `client_id`. Connecting the same pair again answers the same client id.",
  access: 'partner',
  body: connectBody,
  answers: { 200: { description: 'Linked (or already linked to this account).', schema: connectedAccountSchema } },
  errors: ['CLIENT_NOT_FOUND', 'ACCOUNT_ALREADY_LINKED'],
  handler: (services) => async (ctx, { body }) => {
    const outcome = await connectPartnerAccount(services.db, body);
    if (outcome.outcome === 'unknown_email') throw new ApiError('CLIENT_NOT_FOUND', `No client is onboarded with email ${body.email}`);
    if (outcome.outcome === 'already_linked') {
      throw new ApiError('ACCOUNT_ALREADY_LINKED', `The client with email ${body.email}, or account ${body.account}, is already linked to another`);
    }
    ctx.body = { client_id: outcome.client.clientId } satisfies PartnerConnection;
  },
});
