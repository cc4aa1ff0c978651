/** GET /v1/accounts/{accountId}/wallets (admin) — the account's wallets per chain with their registration state. */
import { listAccountWallets } from '../../../db/queries/wallets';
import { defineOperation } from '../../contract/operation';
import { requireAccount } from './context';
import { walletListSchema, type WalletList } from './schemas';
import { accountParams, walletView } from './wallet-params';

export const listWalletsOperation = defineOperation({
  method: 'get',
  path: '/v1/accounts/{accountId}/wallets',
  operationId: 'listWallets',
  summary: "The account's wallets",
  description: "The account's wallets on each chain with their registration state; wallets it unregistered are left out.",
  access: 'admin',
  params: accountParams,
  answers: { 200: { description: 'The wallets.', schema: walletListSchema } },
  errors: ['ACCOUNT_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId } }) => {
    await requireAccount(services, accountId);
    ctx.body = { wallets: (await listAccountWallets(services.db, accountId)).map(walletView) } satisfies WalletList;
  },
});
