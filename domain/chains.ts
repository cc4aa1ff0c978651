/**
 * The chains the product issues on, one entry each: its named id (the request form, `ethereum-1`), bare id (what
 * contracts and signatures carry, `1`), kind, native currency, token decimals, the partner flow's name of it, and the
 * configuration variables that belong to it. Every other name, id and setting of a chain derives from this table
 * (viem's chain definitions too: chains/networks.ts). Pure.
 */

/** What the table holds of each chain. */
export interface ChainEntry {
  /** The chain id contracts, EIP-712 domains and Solana quotes carry. */
  bareId: bigint;
  kind: 'evm' | 'solana';
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** Decimals of the product's tokens there (18 on the EVM chains, 9 for the Solana SPL mint). */
  tokenDecimals: number;
  /** The name the brokerage partner gives the chain's network; absent: the chain is not in the partner flow. */
  partnerNetwork?: string;
  /** The configuration variables that belong to an EVM chain (config/index.ts declares them from here). */
  variables?: {
    /** Its JSON-RPC endpoint; unset: `npm start` runs a local anvil chain for it. */
    rpcUrl: string;
    /** The local anvil chain's port. */
    anvilPort: string;
    /** When a block is final (chains/finality.ts). */
    finality: string;
  };
  /** The local anvil chain's default port. */
  defaultAnvilPort?: number;
  /** Other names the reference issuer's published documents give the chain, taken in requests as the named id. */
  aliases?: readonly string[];
}

export const CHAIN_TABLE = {
  'ethereum-1': {
    bareId: 1n,
    kind: 'evm',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    tokenDecimals: 18,
    partnerNetwork: 'ethereum',
    variables: { rpcUrl: 'RPC_URL_ETHEREUM', anvilPort: 'ANVIL_PORT_ETHEREUM', finality: 'CHAIN_FINALITY_ETHEREUM' },
    defaultAnvilPort: 8545,
  },
  'bsc-56': {
    bareId: 56n,
    kind: 'evm',
    nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 },
    tokenDecimals: 18,
    partnerNetwork: 'binance',
    variables: { rpcUrl: 'RPC_URL_BSC', anvilPort: 'ANVIL_PORT_BSC', finality: 'CHAIN_FINALITY_BSC' },
    defaultAnvilPort: 8546,
  },
  'solana-900': {
    bareId: 900n,
    kind: 'solana',
    nativeCurrency: { name: 'Solana', symbol: 'SOL', decimals: 9 },
    tokenDecimals: 9,
    // The reference's documentation pages name Solana by its mainnet genesis hash; its OpenAPI document by solana-900.
    aliases: ['5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'],
  },
} as const satisfies Record<string, ChainEntry>;

export type ChainTable = typeof CHAIN_TABLE;
type Table = ChainTable;

/** A chain by its named id (`ethereum-1`, `bsc-56`, `solana-900`): what requests and the database name it by. */
export type Chain = keyof Table;
export type EvmChain = { [C in Chain]: Table[C]['kind'] extends 'evm' ? C : never }[Chain];
export type SolanaChain = { [C in Chain]: Table[C]['kind'] extends 'solana' ? C : never }[Chain];
/** The configuration variables of the EVM chains (config/index.ts declares them from this table). */
export type ChainRpcUrlVariable = Table[EvmChain]['variables']['rpcUrl'];
export type ChainAnvilPortVariable = Table[EvmChain]['variables']['anvilPort'];
export type ChainFinalityVariable = Table[EvmChain]['variables']['finality'];
export type ChainVariable = ChainRpcUrlVariable | ChainAnvilPortVariable | ChainFinalityVariable;

/** Every chain, in the table's order. */
export const CHAINS = Object.keys(CHAIN_TABLE) as readonly Chain[];

export function isChain(value: string): value is Chain {
  return Object.hasOwn(CHAIN_TABLE, value);
}

export function isEvmChain(chain: string): chain is EvmChain {
  return isChain(chain) && CHAIN_TABLE[chain].kind === 'evm';
}

export const EVM_CHAINS: readonly EvmChain[] = CHAINS.filter(isEvmChain);

/** The chain of a request that names none, and of a single-chain test stack: the table's first EVM chain. */
export const DEFAULT_CHAIN: EvmChain = EVM_CHAINS[0]!;

/** The one Solana chain. */
export const SOLANA_CHAIN = CHAINS.find((chain) => CHAIN_TABLE[chain].kind === 'solana') as SolanaChain;

/** Every spelling a request may name a chain by, with the chain it names: the named ids, then the aliases. */
export const CHAIN_SPELLINGS: ReadonlyMap<string, Chain> = new Map<string, Chain>([
  ...CHAINS.map((chain) => [chain, chain] as const),
  ...CHAINS.flatMap((chain) => ((CHAIN_TABLE[chain] as ChainEntry).aliases ?? []).map((alias) => [alias, chain] as const)),
]);

/** The chain a request's spelling names (`ethereum-1`, or Solana's genesis hash for `solana-900`); undefined for none. */
export function chainNamed(spelling: string): Chain | undefined {
  return CHAIN_SPELLINGS.get(spelling);
}

/** The bare id of a chain (`ethereum-1` → 1n). */
export function bareChainId(chain: Chain): bigint {
  return CHAIN_TABLE[chain].bareId;
}

/** The decimals of the product's tokens on `chain`. */
export function tokenDecimals(chain: Chain): number {
  return CHAIN_TABLE[chain].tokenDecimals;
}

/** The configuration variables that belong to an EVM chain. */
export function chainVariables(chain: EvmChain): Table[EvmChain]['variables'] {
  return CHAIN_TABLE[chain].variables;
}

/** The default port of an EVM chain's local anvil chain. */
export function defaultAnvilPort(chain: EvmChain): number {
  return CHAIN_TABLE[chain].defaultAnvilPort;
}

/** Every EVM chain's configuration variables, in the table's order. */
export const CHAIN_VARIABLES: readonly ChainVariable[] = EVM_CHAINS.flatMap((chain) => Object.values(chainVariables(chain)));
