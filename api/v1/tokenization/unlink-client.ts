/** DELETE /v1/tokenization/clients/{clientId}/link (admin) — removes the client's link to its partner account. */
import { listPartnerWallets } from '../../../db/queries/wallets';
import { unlinkPartnerAccount } from '../../../db/queries/partner-clients';
import { ApiError } from '../../../domain/errors';
import { clientParams, clientView } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerClientSchema } from './schemas';

export const unlinkClientOperation = defineOperation({
  method: 'delete',
  path: '/v1/tokenization/clients/{clientId}/link',
  operationId: 'unlinkPartnerAccount',
  summary: "Remove a client's link to its partner account",
  description: 'The client stays onboarded; its issuances are refused with `ACCOUNT_NOT_LINKED` until the partner connects again.',
  access: 'admin',
  params: clientParams,
  answers: { 200: { description: 'The client as it is afterwards.', schema: partnerClientSchema } },
  errors: ['CLIENT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { clientId } }) => {
    const client = await unlinkPartnerAccount(services.db, clientId);
    if (!client) throw new ApiError('CLIENT_NOT_FOUND', `No client ${clientId} is onboarded for the partner flow`);
    ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
  },
});
