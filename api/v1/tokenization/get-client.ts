/** GET /v1/tokenization/clients/{clientId} (admin) — the client's onboarding, partner link and enabled wallets. */
import { findPartnerClient } from '../../../db/queries/partner-clients';
import { listPartnerWallets } from '../../../db/queries/wallets';
import { ApiError } from '../../../domain/errors';
import { clientParams, clientView } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerClientSchema } from './schemas';

export const getClientOperation = defineOperation({
  method: 'get',
  path: '/v1/tokenization/clients/{clientId}',
  operationId: 'getPartnerClient',
  summary: 'A client of the partner flow',
  access: 'admin',
  params: clientParams,
  answers: { 200: { description: "The client's onboarding, partner link and enabled wallets.", schema: partnerClientSchema } },
  errors: ['CLIENT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { clientId } }) => {
    const client = await findPartnerClient(services.db, clientId);
    if (!client) throw new ApiError('CLIENT_NOT_FOUND', `No client ${clientId} is onboarded for the partner flow`);
    ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
  },
});
