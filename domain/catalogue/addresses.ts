/**
 * Token addresses the catalogue itself knows. EVM token addresses are not here: they exist only once the
 * contracts are deployed, and the deployment records them (db/queries/chains.ts). No Solana chain runs here,
 * so the Solana mint of a symbol is a deterministic address: base58 of sha256(symbol + chain).
 */
import { PublicKey } from '@solana/web3.js';
import { hexToBytes, sha256, stringToBytes } from 'viem';
import { type AssetDefinition, type ChainId } from './types';

/** Token decimals per chain: 18 on the EVM chains, 9 for the Solana SPL mint. */
export const TOKEN_DECIMALS: Readonly<Record<ChainId, number>> = { 'ethereum-1': 18, 'bsc-56': 18, 'solana-900': 9 };

/** Base58 Solana mint address of `symbol`. */
export function solanaMintAddress(symbol: string): string {
  return new PublicKey(hexToBytes(sha256(stringToBytes(`${symbol}solana-900`)))).toBase58();
}

/** The addresses of `symbol` that exist without a deployment. */
export function tokenAddresses(symbol: string): AssetDefinition['addresses'] {
  return { 'solana-900': solanaMintAddress(symbol) };
}
