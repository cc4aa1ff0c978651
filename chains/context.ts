/**
 * What activities and services need to act on the EVM chains: per chain, its network and a read client, and the
 * issuer's account that signs (deployments, registry writes, partner mints).
 */
import type { LocalAccount, PublicClient } from 'viem';
import type { EvmChain } from '../signing';
import { publicClientFor, type EvmNetwork } from './networks';

export interface ChainContext {
  network: EvmNetwork;
  client: PublicClient;
}

/** The chains this process reaches; a chain without an entry has no RPC configured. */
export type ChainContexts = Partial<Record<EvmChain, ChainContext>>;

export interface IssuerChains {
  chains: ChainContexts;
  /** The issuer's chain account: deployer, registrar and submitter. */
  issuer: LocalAccount;
}

export function chainContexts(networks: EvmNetwork[]): ChainContexts {
  return Object.fromEntries(networks.map((network) => [network.chain, { network, client: publicClientFor(network) }]));
}
