/** GET /v1/accounts/{accountId}/wallets (admin) — the account's wallets per chain with their registration state. */
import type { Middleware } from 'koa';
import { listAccountWallets } from '../../../db/queries/wallets';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requireAccount } from './context';
import { accountParams, walletView } from './wallet-params';

export function listWalletsRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { accountId } = parseParams(accountParams, ctx.params);
    await requireAccount(services, accountId);
    ctx.body = { wallets: (await listAccountWallets(services.db, accountId)).map(walletView) };
  };
}
