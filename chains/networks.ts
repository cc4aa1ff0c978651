/**
 * The EVM chains the product runs on, and viem clients for them: where each chain's JSON-RPC is, which chain id it
 * must answer with, and the issuer's account that signs on it.
 */
import { createPublicClient, defineChain, http, type Chain, type PublicClient } from 'viem';
import { EVM_CHAIN_IDS, type EvmChain } from '../signing';

export const EVM_CHAINS = Object.keys(EVM_CHAIN_IDS) as EvmChain[];

/** One EVM chain and the JSON-RPC endpoint the product reaches it through. */
export interface EvmNetwork {
  chain: EvmChain;
  chainId: number;
  rpcUrl: string;
}

const NATIVE_CURRENCY: Record<EvmChain, Chain['nativeCurrency']> = {
  'ethereum-1': { name: 'Ether', symbol: 'ETH', decimals: 18 },
  'bsc-56': { name: 'BNB', symbol: 'BNB', decimals: 18 },
};

export function evmNetwork(chain: EvmChain, rpcUrl: string): EvmNetwork {
  return { chain, chainId: Number(EVM_CHAIN_IDS[chain]), rpcUrl };
}

/** The viem chain definition of a network (its id, native coin and RPC URL). */
export function viemChain(network: EvmNetwork): Chain {
  return defineChain({
    id: network.chainId,
    name: network.chain,
    nativeCurrency: NATIVE_CURRENCY[network.chain],
    rpcUrls: { default: { http: [network.rpcUrl] } },
  });
}

/**
 * A read client; transport retries are left to the callers (activities retry with backoff). Nothing is cached
 * (viem would serve the block number up to its polling interval old), and receipts are polled every 250 ms.
 * `batch`: calls made in the same tick go out as one JSON-RPC batch (the chain watcher's block headers).
 */
export function publicClientFor(network: EvmNetwork, options: { batch?: boolean } = {}): PublicClient {
  return createPublicClient({
    chain: viemChain(network),
    transport: http(network.rpcUrl, { retryCount: 0, timeout: 10_000, batch: options.batch ? { batchSize: 100 } : false }),
    cacheTime: 0,
    pollingInterval: 250,
  });
}

/** Thrown when a configured RPC endpoint cannot be reached or serves another chain; names the URL. */
export class RpcUnavailableError extends Error {
  override readonly name = 'RpcUnavailableError';
}

/** Checks that the endpoint answers and serves the expected chain id. */
export async function checkRpc(network: EvmNetwork): Promise<void> {
  let chainId: number;
  try {
    chainId = await publicClientFor(network).getChainId();
  } catch (error) {
    throw new RpcUnavailableError(`the ${network.chain} RPC at ${network.rpcUrl} does not answer`, { cause: error });
  }
  if (chainId !== network.chainId) {
    throw new RpcUnavailableError(`the ${network.chain} RPC at ${network.rpcUrl} serves chain id ${chainId}, not ${network.chainId}`);
  }
}
