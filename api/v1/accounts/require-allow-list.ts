/**
 * PUT /v1/accounts/{accountId}/allow-list (admin) — turns the account's wallet allow-list on or off: while on, its
 * attestations are refused with 403 INVALID_ADDRESS when a wallet off the list could use them.
 */
import { setAllowListRequired } from '../../../db/queries/allow-list';
import { defineOperation } from '../../contract/operation';
import { requireAccount } from './context';
import { allowListOf } from './get-allow-list';
import { allowListRequirementBody } from './allow-list-params';
import { allowListSchema } from './schemas';
import { accountParams } from './wallet-params';

export const requireAllowListOperation = defineOperation({
  method: 'put',
  path: '/v1/accounts/{accountId}/allow-list',
  operationId: 'setAllowListRequired',
  summary: "Turn the account's wallet allow-list on or off",
  description:
    "`required: true` makes the account trade only through listed wallets: a Solana attestation's `userAddress`, and every wallet registered to the account on an EVM chain (which its attestations there can be executed from), must be listed on that chain. Setting what is already set changes nothing.",
  access: 'admin',
  params: accountParams,
  body: allowListRequirementBody,
  answers: { 200: { description: 'The allow-list as it now stands.', schema: allowListSchema } },
  errors: ['ACCOUNT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId }, body: { required } }) => {
    await requireAccount(services, accountId);
    await setAllowListRequired(services.db, accountId, required);
    ctx.body = await allowListOf(services, accountId);
  },
});
