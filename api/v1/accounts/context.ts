/** What the wallet routes share: the account a path names, and the chain's deployment they write to. */
import { findAccount, type Account } from '../../../db/queries/accounts';
import { findChainDeployment } from '../../../db/queries/chain-deployments';
import type { WalletWorkflows } from '../../../wallets/registration';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';

export async function requireAccount(services: ApiServices, accountId: string): Promise<Account> {
  const account = await findAccount(services.db, accountId);
  if (!account) throw new ApiError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  return account;
}

/** The workflow service and the chain's contracts, or 503: without them a registration could never be applied. */
export async function requireChain(services: ApiServices, chain: string): Promise<WalletWorkflows> {
  if (!services.temporal) throw new ApiError('TEMPORAL_UNAVAILABLE', 'This API process has no workflow service');
  if (!(await findChainDeployment(services.db, chain))) throw new ApiError('CHAIN_UNAVAILABLE', `No contracts are deployed on ${chain}`);
  return { client: services.temporal, taskQueue: services.taskQueue };
}
