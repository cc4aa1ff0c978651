/** The accounts resource: an account's wallets in the chains' identity registries and its wallet allow-list (admin). */
import type { Resource } from '../../contract/operation';
import { allowWalletOperation, disallowWalletOperation } from './allow-wallet';
import { getAllowListOperation } from './get-allow-list';
import { listWalletsOperation } from './list-wallets';
import { registerWalletOperation } from './register-wallet';
import { requireAllowListOperation } from './require-allow-list';
import { unregisterWalletOperation } from './unregister-wallet';

export const accountsResource: Resource = {
  tag: 'Accounts',
  description: "An account's wallets in the chains' identity registries, and the allow-list of wallets it may trade through (admin).",
  operations: [
    listWalletsOperation,
    registerWalletOperation,
    unregisterWalletOperation,
    getAllowListOperation,
    requireAllowListOperation,
    allowWalletOperation,
    disallowWalletOperation,
  ],
};
