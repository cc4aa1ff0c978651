/**
 * Token addresses the catalogue itself knows. EVM token addresses are not here: they exist only once the
 * contracts are deployed, and the deployment records them (db/queries/chains.ts). No Solana chain runs here,
 * so the Solana mint of a symbol is a deterministic address: base58 of sha256(symbol + chain).
 */
import { PublicKey } from '@solana/web3.js';
import { hexToBytes, sha256, stringToBytes } from 'viem';
import { SOLANA_CHAIN } from '../chains';
import { type AssetDefinition } from './types';

/** Base58 Solana mint address of `symbol`. */
export function solanaMintAddress(symbol: string): string {
  return new PublicKey(hexToBytes(sha256(stringToBytes(`${symbol}${SOLANA_CHAIN}`)))).toBase58();
}

/** The addresses of `symbol` that exist without a deployment. */
export function tokenAddresses(symbol: string): AssetDefinition['addresses'] {
  return { [SOLANA_CHAIN]: solanaMintAddress(symbol) };
}
