/**
 * A local EVM chain for a test file or a benchmark: anvil on a free port (stopped by its pid whatever happens), mining
 * as `npm start`'s chains do (a block every 0.5 s, transactions at once, `finalized` four blocks below the head), the
 * product's contracts deployed by the issuer (anvil account 0) and recorded in the given database.
 */
import { createTestClient, createWalletClient, http, type Chain, type LocalAccount, type PublicClient, type TestClient, type Transport, type WalletClient } from 'viem';
import { LOCAL_CHAIN_MINING, startAnvil, type RunningAnvil } from '../chains/anvil';
import { chainContexts, type ChainContext } from '../chains/context';
import { ensureDeployment } from '../chains/deployments';
import { evmNetwork, viemChain } from '../chains/networks';
import type { Database } from '../db/pool';
import type { ChainDeploymentRecord } from '../db/queries/chains';
import { CATALOGUE } from '../domain/catalogue';
import { DEFAULT_CHAIN, type EvmChain } from '../domain/chains';
import { anvilAccount } from '../chains/anvil';

export interface LocalChain {
  chain: EvmChain;
  anvil: RunningAnvil;
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
}

export async function startLocalChain(parameters: StartLocalChainParameters): Promise<LocalChain> {
  const chain = parameters.chain ?? DEFAULT_CHAIN;
  const anvil = await startAnvil({ chainId: evmNetwork(chain, '').chainId, ...LOCAL_CHAIN_MINING });
  try {
    const network = evmNetwork(chain, anvil.rpcUrl);
    const context = chainContexts([network])[chain]!;
    const issuer = anvilAccount(0);
    const { deployment } = await ensureDeployment({
      db: parameters.db,
      context,
      issuer,
      attestationSigner: parameters.attestationSigner,
      brokerSigner: parameters.brokerSigner,
      assets: CATALOGUE,
    });
    const transport = http(anvil.rpcUrl);
    return {
      chain,
      anvil,
      context,
      client: context.client,
      deployment,
      issuer,
      testClient: createTestClient({ chain: viemChain(network), mode: 'anvil', transport }),
      walletOf: (index) => createWalletClient({ chain: viemChain(network), account: anvilAccount(index), transport }),
      stop: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
