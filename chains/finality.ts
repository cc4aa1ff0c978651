/**
 * When a block of a chain is final: the `finalized` block tag by default (Ethereum and BSC both serve it), the
 * `safe` tag, or a fixed depth below the head. One rule per chain (`CHAIN_FINALITY_ETHEREUM`,
 * `CHAIN_FINALITY_BSC`); whatever cannot be undone waits for it: attestations recorded `executed`, shares delivered
 * for a burn, the broker's callback after a partner mint.
 */
import type { PublicClient } from 'viem';
import { chainVariables, EVM_CHAINS, type ChainFinalityVariable, type EvmChain } from '../domain/chains';

export type ChainFinality = { tag: 'finalized' | 'safe' } | { depth: number };

/** The default rule: the chain's own `finalized` block. */
export const DEFAULT_FINALITY: ChainFinality = { tag: 'finalized' };

/** `finalized`, `safe` or a depth in blocks (`0`: the head itself is final — only for chains that cannot reorganise). */
export function parseFinality(value: string): ChainFinality {
  if (value === 'finalized' || value === 'safe') return { tag: value };
  if (/^\d{1,4}$/.test(value)) return { depth: Number(value) };
  throw new Error(`not a finality rule: ${value} (finalized, safe or a block depth)`);
}

/** The rule of each chain from the configuration (its CHAIN_FINALITY_<CHAIN> variable, domain/chains.ts). */
export function chainFinality(config: Record<ChainFinalityVariable, ChainFinality>): Record<EvmChain, ChainFinality> {
  return Object.fromEntries(EVM_CHAINS.map((chain) => [chain, config[chainVariables(chain).finality]])) as Record<EvmChain, ChainFinality>;
}

export function describeFinality(finality: ChainFinality): string {
  return 'tag' in finality ? `the ${finality.tag} block` : `${finality.depth} blocks below the head`;
}

/** A block header as the watcher keeps it. */
export interface BlockHeader {
  number: number;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  /** Epoch milliseconds. */
  timestamp: number;
}

export function headerOf(block: { number: bigint | null; hash: `0x${string}` | null; parentHash: `0x${string}`; timestamp: bigint }): BlockHeader {
  if (block.number === null || block.hash === null) throw new Error('a pending block has no number or hash');
  return { number: Number(block.number), hash: block.hash, parentHash: block.parentHash, timestamp: Number(block.timestamp) * 1000 };
}

/**
 * The highest final block number under `finality`, given the head: the tag's block (-1 when the chain has none
 * yet, e.g. a new chain), or the head less the depth.
 */
export async function finalBlockNumber(client: PublicClient, finality: ChainFinality, head: number): Promise<number> {
  if ('depth' in finality) return head - finality.depth;
  try {
    const block = await client.getBlock({ blockTag: finality.tag });
    return Number(block.number);
  } catch (error) {
    // A chain younger than its first finalized block answers null (viem: BlockNotFoundError).
    if (error instanceof Error && error.name === 'BlockNotFoundError') return -1;
    throw error;
  }
}
