/** The accounts resource: an account's wallets in the chains' identity registries (admin). */
import Router from '@koa/router';
import { requireScope } from '../../framework/auth';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { listWalletsRoute } from './list-wallets';
import { registerWalletRoute } from './register-wallet';
import { unregisterWalletRoute } from './unregister-wallet';

export function accountsRouter(services: ApiServices): Router<ApiState> {
  const admin = requireScope('admin');
  return new Router<ApiState>({ prefix: '/accounts' })
    .get('/:accountId/wallets', admin, listWalletsRoute(services))
    .post('/:accountId/wallets', admin, registerWalletRoute(services))
    .delete('/:accountId/wallets/:chainId/:address', admin, unregisterWalletRoute(services));
}
