/**
 * DELETE /v1/accounts/{accountId}/wallets/{chainId}/{address} (admin) — removes the account's wallet from the
 * chain's identity registry: 202 `unregistering` while the workflow writes the registry.
 */
import type { Middleware } from 'koa';
import { unregisterWallet } from '../../../wallets/registration';
import { ApiError } from '../../framework/errors';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requireAccount, requireChain } from './context';
import { WALLET_FIELD_CODES, walletParams, walletView } from './wallet-params';

export function unregisterWalletRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { accountId, chainId, address } = parseParams(walletParams, ctx.params, WALLET_FIELD_CODES);
    await requireAccount(services, accountId);
    const workflows = await requireChain(services, chainId);
    const wallet = await unregisterWallet(services.db, workflows, { accountId, chain: chainId, address });
    if (!wallet) throw new ApiError('WALLET_NOT_FOUND', `Account ${accountId} has no wallet ${address} on ${chainId}`);
    ctx.status = wallet.state === 'unregistering' ? 202 : 200;
    ctx.body = walletView(wallet);
  };
}
