/**
 * Brings a chain's identity registry to the wallet state the API asked for (`registering` → registered to the
 * account's userId, `unregistering` → removed) and records the outcome. Under an advisory lock per wallet, it
 * reads the registry first and sends a transaction only when the chain differs, through `sendTransactionOnce`
 * keyed by the request, so retries and concurrent requests converge on the latest wanted state with one
 * transaction each.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { getAddress, zeroHash } from 'viem';
import type { IssuerChains } from '../chains/context';
import { sendTransactionOnce, TransactionWouldRevertError } from '../chains/transactions';
import { identityRegistryAbi } from '../contracts/abi';
import type { Database } from '../db/pool';
import { findChainDeployment } from '../db/queries/chain-deployments';
import { findWallet, recordWalletOutcome, type WalletRecord } from '../db/queries/wallets';
import type { EvmChain } from '../signing';
import { chainFailureTypes } from '../temporal/messages';

export interface WalletActivityDependencies extends IssuerChains {
  db: Database;
}

export interface WalletRegistrationResult {
  chain: string;
  address: string;
  state: WalletRecord['state'];
  txHash: string | null;
  error: string | null;
}

function resultOf(wallet: WalletRecord): WalletRegistrationResult {
  return { chain: wallet.chain, address: wallet.address, state: wallet.state, txHash: wallet.txHash, error: wallet.error };
}

export function createWalletActivities(deps: WalletActivityDependencies) {
  const { db } = deps;

  return {
    /** Applies the wallet's wanted registry state on its chain; answers where it ends (see the module header). */
    async applyWalletRegistration(input: { chain: string; address: string }): Promise<WalletRegistrationResult> {
      const context = deps.chains[input.chain as EvmChain];
      const deployment = await findChainDeployment(db, input.chain);
      if (!context || !deployment) {
        throw ApplicationFailure.create({ type: chainFailureTypes.notDeployed, message: `no contracts recorded for ${input.chain}`, nonRetryable: true });
      }
      const lock = await db.connect();
      try {
        await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`wallet:${input.chain}:${input.address.toLowerCase()}`]);
        const wallet = await findWallet(lock, input.chain, input.address);
        if (!wallet) throw ApplicationFailure.create({ type: 'WALLET_NOT_FOUND', message: `no wallet ${input.address} on ${input.chain}`, nonRetryable: true });
        if (wallet.state !== 'registering' && wallet.state !== 'unregistering') return resultOf(wallet);

        const address = getAddress(wallet.address);
        const onChain = await context.client.readContract({ address: deployment.registry, abi: identityRegistryAbi, functionName: 'userIdOf', args: [address] });
        const wanted = wallet.state === 'registering' ? wallet.userId : zeroHash;
        const from = wallet.state;
        const done = from === 'registering' ? 'registered' : 'unregistered';
        if (onChain.toLowerCase() === wanted.toLowerCase()) {
          return resultOf((await recordWalletOutcome(lock, { chain: wallet.chain, address, from, state: done }))!);
        }
        if (from === 'registering' && onChain !== zeroHash) {
          const error = `registered on chain to another user (${onChain})`;
          return resultOf((await recordWalletOutcome(lock, { chain: wallet.chain, address, from, state: 'failed', error }))!);
        }
        try {
          const sent = await sendTransactionOnce(db, {
            key: `wallet:${wallet.chain}:${wallet.address}:${wallet.updatedAt.getTime()}:${from}`,
            network: context.network,
            client: context.client,
            account: deps.issuer,
            to: deployment.registry,
            abi: identityRegistryAbi,
            functionName: from === 'registering' ? 'register' : 'unregister',
            args: from === 'registering' ? [address, wallet.userId] : [address],
          });
          const state = sent.status === 'success' ? done : 'failed';
          const error = sent.status === 'success' ? null : `transaction ${sent.txHash} reverted`;
          return resultOf((await recordWalletOutcome(lock, { chain: wallet.chain, address, from, state, txHash: sent.txHash, error }))!);
        } catch (error) {
          if (!(error instanceof TransactionWouldRevertError)) throw error;
          return resultOf((await recordWalletOutcome(lock, { chain: wallet.chain, address, from, state: 'failed', error: error.reason ?? error.message }))!);
        }
      } finally {
        await lock.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        lock.release();
      }
    },
  };
}

export type WalletActivities = ReturnType<typeof createWalletActivities>;
