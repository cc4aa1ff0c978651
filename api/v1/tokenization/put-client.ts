/**
 * PUT /v1/tokenization/clients/{clientId} (admin) `{email, eligible?, partnerAccount?}` — onboards an account for the
 * partner flow (or changes its email or eligibility): the partner then connects with that email, or the operator links
 * the partner account here. 200 with the client; 409 ACCOUNT_ALREADY_LINKED when the email is another client's or
 * either side of the link is linked to another.
 */
import { findPartnerClient, linkPartnerAccount, upsertPartnerClient } from '../../../db/queries/partner-clients';
import { listPartnerWallets } from '../../../db/queries/wallets';
import { ApiError } from '../../../domain/errors';
import { requireAccount } from '../accounts/context';
import { clientBody, clientParams, clientView } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerClientSchema } from './schemas';

export const putClientOperation = defineOperation({
  method: 'put',
  path: '/v1/tokenization/clients/{clientId}',
  operationId: 'onboardPartnerClient',
  summary: 'Onboard an account for the partner flow',
  description:
    "Onboards the account `clientId` for the partner flow, or changes its email or eligibility (a link made earlier is kept). The partner then links its account with connect and that email, or the operator links it here with `partnerAccount`. `eligible` defaults to true.",
  access: 'admin',
  params: clientParams,
  body: clientBody,
  answers: { 200: { description: 'The client as stored, with its enabled wallets.', schema: partnerClientSchema } },
  errors: ['ACCOUNT_NOT_FOUND', 'ACCOUNT_ALREADY_LINKED'],
  handler: (services) => async (ctx, { params: { clientId }, body }) => {
    await requireAccount(services, clientId);
    try {
      const onboarded = await upsertPartnerClient(services.db, { clientId, email: body.email, eligible: body.eligible });
      if (body.partnerAccount !== undefined && !(await linkPartnerAccount(services.db, clientId, body.partnerAccount))) {
        throw new ApiError('ACCOUNT_ALREADY_LINKED', `Client ${clientId} or partner account ${body.partnerAccount} is linked to another`);
      }
      const client = body.partnerAccount === undefined ? onboarded : (await findPartnerClient(services.db, clientId))!;
      ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new ApiError('ACCOUNT_ALREADY_LINKED', `Another client is onboarded with email ${body.email}`);
      throw error;
    }
  },
});
