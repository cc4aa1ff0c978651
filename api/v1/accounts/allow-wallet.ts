/**
 * PUT and DELETE /v1/accounts/{accountId}/allow-list/{chainId}/{address} (admin) — lists a wallet for the account on
 * a chain, or takes it off. Both are idempotent: listing a listed wallet, or removing one that is not listed, changes
 * nothing and answers the same list. An EVM address is one wallet in any case.
 */
import { addAllowedWallet, removeAllowedWallet } from '../../../db/queries/allow-list';
import { defineOperation } from '../../contract/operation';
import { requireAccount } from './context';
import { allowListOf } from './get-allow-list';
import { ALLOWED_WALLET_FIELD_CODES, allowedWalletParams } from './allow-list-params';
import { allowListSchema } from './schemas';

export const allowWalletOperation = defineOperation({
  method: 'put',
  path: '/v1/accounts/{accountId}/allow-list/{chainId}/{address}',
  operationId: 'allowWallet',
  summary: "Add a wallet to the account's allow-list",
  description: 'Lists the wallet for the account on the chain. Listing a wallet already listed changes nothing (it keeps its `addedAt`).',
  access: 'admin',
  params: allowedWalletParams,
  fieldCodes: ALLOWED_WALLET_FIELD_CODES,
  answers: { 200: { description: 'The allow-list with the wallet on it.', schema: allowListSchema } },
  errors: ['ACCOUNT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId, chainId, address } }) => {
    await requireAccount(services, accountId);
    await addAllowedWallet(services.db, { accountId, chain: chainId, address });
    ctx.body = await allowListOf(services, accountId);
  },
});

export const disallowWalletOperation = defineOperation({
  method: 'delete',
  path: '/v1/accounts/{accountId}/allow-list/{chainId}/{address}',
  operationId: 'disallowWallet',
  summary: "Remove a wallet from the account's allow-list",
  description:
    'Takes the wallet off the account\'s list on the chain; removing a wallet that is not listed changes nothing. While the list is required, the account\'s next attestations a removed wallet could use are refused with 403 `INVALID_ADDRESS`; attestations already issued are not withdrawn.',
  access: 'admin',
  params: allowedWalletParams,
  fieldCodes: ALLOWED_WALLET_FIELD_CODES,
  answers: { 200: { description: 'The allow-list without the wallet.', schema: allowListSchema } },
  errors: ['ACCOUNT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId, chainId, address } }) => {
    await requireAccount(services, accountId);
    await removeAllowedWallet(services.db, { accountId, chain: chainId, address });
    ctx.body = await allowListOf(services, accountId);
  },
});
