/**
 * A local EVM chain for a test file or a benchmark: the chains part (start/chains.ts) with one anvil chain on a free
 * port (stopped by its pid whatever happens), mining as `npm start`'s chains do unless told otherwise, the product's
 * contracts deployed by the issuer (anvil account 0) and recorded in the given database; and anvil's test actions.
 */
import { createTestClient, createWalletClient, http, type Chain, type LocalAccount, type PublicClient, type TestClient, type Transport, type WalletClient } from 'viem';
import { anvilAccount } from '../chains/anvil';
import type { ChainContext } from '../chains/context';
import { viemChain } from '../chains/networks';
import type { Database } from '../db/pool';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { DEFAULT_CHAIN, type EvmChain } from '../domain/chains';
import { ensureDeployments, startLocalChains, type LocalChainsOptions, type RunningChains } from '../start/chains';
import { quietLogger } from './settings';

export interface LocalChain {
  chain: EvmChain;
  /** The chains part running it (for the worker and the API). */
  running: RunningChains;
  context: ChainContext;
  client: PublicClient;
  deployment: ChainDeploymentRecord;
  issuer: LocalAccount;
  /** anvil's test actions (mine, snapshot, time, reorganisations). */
  testClient: TestClient;
  /** A wallet client for one of anvil's development accounts (1–9). */
  walletOf(index: number): WalletClient<Transport, Chain, LocalAccount>;
  stop(): Promise<void>;
}

export interface StartLocalChainParameters {
  db: Database;
  chain?: EvmChain;
  /** The attestation signer the token manager checks quotes against. */
  attestationSigner: `0x${string}`;
  /** Granted BROKER_SIGNER_ROLE on the issuer contract (the partner flow's mint requests). */
  brokerSigner?: `0x${string}`;
  /** How blocks are produced (default `LOCAL_CHAIN_MINING`). */
  mining?: LocalChainsOptions['mining'];
}

export async function startLocalChain(parameters: StartLocalChainParameters): Promise<LocalChain> {
  const chain = parameters.chain ?? DEFAULT_CHAIN;
  const logger = quietLogger();
  const running = await startLocalChains({ logger, chains: [chain], mining: parameters.mining });
  try {
    const [deployment] = await ensureDeployments({
      db: parameters.db,
      chains: running,
      attestationSigner: parameters.attestationSigner,
      brokerSigner: parameters.brokerSigner,
      logger,
    });
    const context = running.chains[chain]!;
    const transport = http(context.network.rpcUrl);
    const definition = viemChain(context.network);
    return {
      chain,
      running,
      context,
      client: context.client,
      deployment: deployment!,
      issuer: running.issuer,
      testClient: createTestClient({ chain: definition, mode: 'anvil', transport }),
      walletOf: (index) => createWalletClient({ chain: definition, account: anvilAccount(index), transport }),
      stop: () => running.stop(),
    };
  } catch (error) {
    await running.stop();
    throw error;
  }
}
