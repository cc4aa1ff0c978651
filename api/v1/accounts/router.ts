/** The accounts resource: an account's wallets in the chains' identity registries (admin). */
import type { Resource } from '../../contract/operation';
import { listWalletsOperation } from './list-wallets';
import { registerWalletOperation } from './register-wallet';
import { unregisterWalletOperation } from './unregister-wallet';

export const accountsResource: Resource = {
  tag: 'Accounts',
  description: "An account's wallets in the chains' identity registries (admin).",
  operations: [listWalletsOperation, registerWalletOperation, unregisterWalletOperation],
};
