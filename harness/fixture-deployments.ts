/**
 * Deployment records for API tests that sign attestations but never touch a chain: each EVM chain gets a token
 * manager and token addresses at fixed test addresses (no contract lives there). Tests against real contracts
 * deploy them on anvil instead (harness/).
 */
import { CATALOGUE } from '../domain/catalogue';
import type { Queryable } from '../db/pool';
import { recordChainDeployment } from '../db/queries/chain-deployments';
import type { EvmChain } from '../signing';

const testAddress = (tag: number, index: number) => `0x${tag.toString(16).padStart(8, '0')}${index.toString(16).padStart(32, '0')}` as const;

const CHAIN_TAGS: Record<EvmChain, number> = { 'ethereum-1': 0xe7e7e7e7, 'bsc-56': 0xb5cb5c56 };

/** The token manager each chain's fixture deployment records. */
export const FIXTURE_TOKEN_MANAGERS: Record<EvmChain, `0x${string}`> = {
  'ethereum-1': testAddress(CHAIN_TAGS['ethereum-1'], 1_000),
  'bsc-56': testAddress(CHAIN_TAGS['bsc-56'], 1_000),
};

export async function recordFixtureDeployments(db: Queryable): Promise<void> {
  for (const [chain, tag] of Object.entries(CHAIN_TAGS) as [EvmChain, number][]) {
    const tokens = Object.fromEntries(CATALOGUE.map((asset, index) => [asset.symbol, testAddress(tag, index)]));
    await recordChainDeployment(
      db,
      {
        chain,
        chainId: chain === 'ethereum-1' ? 1 : 56,
        tokenManager: FIXTURE_TOKEN_MANAGERS[chain],
        issuer: testAddress(tag, 1_001),
        registry: testAddress(tag, 1_002),
        stablecoin: testAddress(tag, 1_003),
        deployer: testAddress(tag, 1_004),
        deployedBlock: 0,
      },
      tokens,
    );
  }
}
