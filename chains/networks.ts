/**
 * The EVM chains the product runs on (domain/chains.ts), and viem clients for them: where each chain's JSON-RPC is,
 * which chain id it must answer with, and viem's definition of it.
 */
import { createPublicClient, defineChain, http, type Chain, type PublicClient } from 'viem';
import { bareChainId, CHAIN_TABLE, EVM_CHAINS, type EvmChain } from '../domain/chains';

export { EVM_CHAINS };

/** One EVM chain and the JSON-RPC endpoint the product reaches it through. */
export interface EvmNetwork {
  chain: EvmChain;
  chainId: number;
  rpcUrl: string;
}

export function evmNetwork(chain: EvmChain, rpcUrl: string): EvmNetwork {
  return { chain, chainId: Number(bareChainId(chain)), rpcUrl };
}

/** viem's definition of a network's chain: the table's id, name and native coin, and the network's RPC URL. */
export function viemChain(network: EvmNetwork): Chain {
  return defineChain({
    id: network.chainId,
    name: network.chain,
    nativeCurrency: CHAIN_TABLE[network.chain].nativeCurrency,
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
