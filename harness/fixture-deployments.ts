/**
 * Deployment records for API tests that sign attestations but never touch a chain: each EVM chain gets a token
 * manager and token addresses at fixed test addresses (no contract lives there). Tests against real contracts
 * deploy them on anvil instead (harness/).
 */
import { CATALOGUE } from '../domain/catalogue';
import { bareChainId, EVM_CHAINS, type EvmChain } from '../domain/chains';
import type { Queryable } from '../db/pool';
import { recordChainDeployment } from '../db/queries/chain-deployments';

/** The `index`-th fixture address of `chain`: its first four bytes tell the chain (0xf1c7 and its bare id). */
const testAddress = (chain: EvmChain, index: number) =>
  `0x${(0xf1c70000 + Number(bareChainId(chain))).toString(16).padStart(8, '0')}${index.toString(16).padStart(32, '0')}` as const;

/** The token manager each chain's fixture deployment records. */
export const FIXTURE_TOKEN_MANAGERS = Object.fromEntries(EVM_CHAINS.map((chain) => [chain, testAddress(chain, 1_000)])) as Record<EvmChain, `0x${string}`>;

export async function recordFixtureDeployments(db: Queryable): Promise<void> {
  for (const chain of EVM_CHAINS) {
    const tokens = Object.fromEntries(CATALOGUE.map((asset, index) => [asset.symbol, testAddress(chain, index)]));
    await recordChainDeployment(
      db,
      {
        chain,
        chainId: Number(bareChainId(chain)),
        tokenManager: FIXTURE_TOKEN_MANAGERS[chain],
        issuer: testAddress(chain, 1_001),
        registry: testAddress(chain, 1_002),
        stablecoin: testAddress(chain, 1_003),
        deployer: testAddress(chain, 1_004),
        deployedBlock: 0,
      },
      tokens,
    );
  }
}
