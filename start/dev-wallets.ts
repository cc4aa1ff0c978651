/**
 * Development wallets on the local chains: anvil's accounts 1–3 (native coin from anvil), each given development
 * stablecoin by the issuer and registered to the development write key's account on every chain, so a person can
 * try the whole loop with curl and viem or `cast`. Funding is a keyed, stored transaction and registration goes
 * through the wallet-registration workflow, so a restart does neither twice. The Solana development wallets are
 * listed for the same account (`listSolanaDevWallets`).
 */
import { getAddress, parseUnits } from 'viem';
import type { RunningChains } from './chains';
import { anvilAccount } from '../chains/anvil';
import { sendTransactionOnce } from '../chains/transactions';
import { stablecoinAbi } from '../contracts/abi';
import type { Database } from '../db/pool';
import { addAllowedWallet } from '../db/queries/allow-list';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { SOLANA_CHAIN } from '../domain/chains';
import { registerWallet, type WalletWorkflows } from '../wallets/registration';

/** Development stablecoin each wallet holds (USD, 6 decimals). */
const DEV_STABLECOIN_BALANCE = parseUnits('1000000', 6);
const DEV_WALLET_INDEXES = [1, 2, 3];

export interface DevWallet {
  address: `0x${string}`;
  privateKey: `0x${string}`;
  accountId: string;
  userId: `0x${string}`;
}

export async function ensureDevWallets(parameters: {
  db: Database;
  chains: RunningChains;
  deployments: ChainDeploymentRecord[];
  workflows: WalletWorkflows;
  account: { id: string; userId: `0x${string}` };
}): Promise<DevWallet[]> {
  const { db, chains, deployments, workflows, account } = parameters;
  const wallets = DEV_WALLET_INDEXES.map(anvilAccount);
  for (const deployment of deployments) {
    const context = chains.chains[deployment.chain as keyof typeof chains.chains];
    if (!context) continue;
    for (const wallet of wallets) {
      const balance = await context.client.readContract({ address: deployment.stablecoin, abi: stablecoinAbi, functionName: 'balanceOf', args: [wallet.address] });
      if (balance < DEV_STABLECOIN_BALANCE) {
        await sendTransactionOnce(db, {
          key: `dev-wallet-funding:${deployment.chain}:${deployment.stablecoin.toLowerCase()}:${wallet.address.toLowerCase()}`,
          network: context.network,
          client: context.client,
          account: chains.issuer,
          to: deployment.stablecoin,
          abi: stablecoinAbi,
          functionName: 'mint',
          args: [wallet.address, DEV_STABLECOIN_BALANCE - balance],
        });
      }
      await registerWallet(db, workflows, { accountId: account.id, chain: deployment.chain, address: wallet.address });
    }
  }
  return wallets.map((wallet) => ({ address: getAddress(wallet.address), privateKey: wallet.privateKey, accountId: account.id, userId: account.userId }));
}

/**
 * The Solana development wallets of the set-up (start/solana-setup.ts), listed for the development account on
 * solana-900. Solana has no identity registry to register them in: the account's allow-list is where a Solana wallet
 * belongs to an account, so an account that requires listed wallets can trade with them. Listing again changes nothing.
 */
export async function listSolanaDevWallets(db: Database, parameters: { accountId: string; wallets: ReadonlyArray<{ address: string }> }): Promise<void> {
  for (const wallet of parameters.wallets) await addAllowedWallet(db, { accountId: parameters.accountId, chain: SOLANA_CHAIN, address: wallet.address });
}
