/**
 * Deterministic contract addresses of the catalogue's tokens: the same symbol always maps to the
 * same address on every start, with no deployment registry needed. EVM addresses are the last 20
 * bytes of keccak256(symbol + chain), checksummed; Solana mints are base58 of sha256(symbol + chain).
 */
import { PublicKey } from '@solana/web3.js';
import { getAddress, hexToBytes, keccak256, sha256, slice, stringToBytes } from 'viem';
import { type AssetDefinition, type ChainId } from './types';

/** Every chain a token is deployed on, in the order the API lists them. */
export const CHAIN_IDS: readonly ChainId[] = ['ethereum-1', 'bsc-56', 'solana-900'];

/** Token decimals per chain: 18 on the EVM chains, 9 for the Solana SPL mint. */
export const TOKEN_DECIMALS: Readonly<Record<ChainId, number>> = { 'ethereum-1': 18, 'bsc-56': 18, 'solana-900': 9 };

/** Checksummed EVM address of `symbol` on an EVM chain. */
export function evmTokenAddress(symbol: string, chain: 'ethereum-1' | 'bsc-56'): `0x${string}` {
  return getAddress(slice(keccak256(stringToBytes(symbol + chain)), 12));
}

/** Base58 Solana mint address of `symbol`. */
export function solanaMintAddress(symbol: string): string {
  return new PublicKey(hexToBytes(sha256(stringToBytes(`${symbol}solana-900`)))).toBase58();
}

/** The addresses of `symbol` on every chain. */
export function tokenAddresses(symbol: string): AssetDefinition['addresses'] {
  return {
    'ethereum-1': evmTokenAddress(symbol, 'ethereum-1'),
    'bsc-56': evmTokenAddress(symbol, 'bsc-56'),
    'solana-900': solanaMintAddress(symbol),
  };
}
