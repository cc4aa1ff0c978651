/**
 * POST /v1/accounts/{accountId}/wallets (admin) — registers a wallet to the account in the identity registry of an
 * EVM chain. Answers at once with the registration's state: 202 `registering` while the workflow writes the
 * registry, 200 for the account's own wallet as it stands (a repeated request changes nothing), 409 when another
 * account holds the wallet.
 */
import type { Middleware } from 'koa';
import { registerWallet } from '../../../wallets/registration';
import { readJsonBody } from '../../framework/body';
import { ApiError } from '../../framework/errors';
import { parseBody, parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requireAccount, requireChain } from './context';
import { accountParams, WALLET_FIELD_CODES, walletBody, walletView } from './wallet-params';

export function registerWalletRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { accountId } = parseParams(accountParams, ctx.params);
    const body = parseBody(walletBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES), WALLET_FIELD_CODES);
    await requireAccount(services, accountId);
    const workflows = await requireChain(services, body.chainId);
    const outcome = await registerWallet(services.db, workflows, { accountId, chain: body.chainId, address: body.address });
    if (outcome.outcome === 'taken') {
      throw new ApiError('WALLET_ALREADY_REGISTERED', `Wallet ${body.address} is registered to another account on ${body.chainId}`);
    }
    ctx.status = outcome.outcome === 'requested' ? 202 : 200;
    ctx.body = walletView(outcome.wallet);
  };
}
