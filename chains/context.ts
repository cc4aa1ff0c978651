/**
 * What activities and services need to act on the EVM chains: per chain, its network, a read client and its
 * finality rule, and the issuer's account that signs (deployments, registry writes, partner mints).
 */
import type { LocalAccount, PublicClient } from 'viem';
import type { EvmChain } from '../domain/chains';
import { DEFAULT_FINALITY, type ChainFinality } from './finality';
import { publicClientFor, type EvmNetwork } from './networks';

export interface ChainContext {
  network: EvmNetwork;
  client: PublicClient;
  /** When a block of this chain is final (CHAIN_FINALITY_<CHAIN>). */
  finality: ChainFinality;
}

/** The chains this process reaches; a chain without an entry has no RPC configured. */
export type ChainContexts = Partial<Record<EvmChain, ChainContext>>;

export interface IssuerChains {
  chains: ChainContexts;
  /** The issuer's chain account: deployer, registrar and submitter. */
  issuer: LocalAccount;
}

/** The contexts of `networks`; a chain without a rule in `finality` waits for its `finalized` block. */
export function chainContexts(networks: EvmNetwork[], finality: Partial<Record<EvmChain, ChainFinality>> = {}): ChainContexts {
  return Object.fromEntries(
    networks.map((network) => [network.chain, { network, client: publicClientFor(network), finality: finality[network.chain] ?? DEFAULT_FINALITY }]),
  );
}
