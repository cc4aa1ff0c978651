/**
 * DELETE /v1/accounts/{accountId}/wallets/{chainId}/{address} (admin) — removes the account's wallet from the
 * chain's identity registry: 202 `unregistering` while the workflow writes the registry.
 */
import { unregisterWallet } from '../../../wallets/registration';
import { ApiError } from '../../../domain/errors';
import { defineOperation } from '../../contract/operation';
import { requireAccount, requireChain } from './context';
import { walletSchema } from './schemas';
import { WALLET_FIELD_CODES, walletParams, walletView } from './wallet-params';

export const unregisterWalletOperation = defineOperation({
  method: 'delete',
  path: '/v1/accounts/{accountId}/wallets/{chainId}/{address}',
  operationId: 'unregisterWallet',
  summary: 'Unregister a wallet from the account',
  description: "Removes the account's wallet from the chain's identity registry, answering at once while a workflow writes the registry.",
  access: 'admin',
  params: walletParams,
  fieldCodes: WALLET_FIELD_CODES,
  answers: {
    200: { description: 'The wallet as it stands, when a concurrent change left it in another state than `unregistering`.', schema: walletSchema },
    202: { description: 'The removal is under way (`unregistering`).', schema: walletSchema },
  },
  errors: ['ACCOUNT_NOT_FOUND', 'TEMPORAL_UNAVAILABLE', 'CHAIN_UNAVAILABLE', 'WALLET_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { accountId, chainId, address } }) => {
    await requireAccount(services, accountId);
    const workflows = await requireChain(services, chainId);
    const wallet = await unregisterWallet(services.db, workflows, { accountId, chain: chainId, address });
    if (!wallet) throw new ApiError('WALLET_NOT_FOUND', `Account ${accountId} has no wallet ${address} on ${chainId}`);
    ctx.status = wallet.state === 'unregistering' ? 202 : 200;
    ctx.body = walletView(wallet);
  },
});
