/**
 * The token-manager contract per EVM chain: the EIP-712 `verifyingContract` of attestations.
 * Configured with TOKEN_MANAGER_ETHEREUM / TOKEN_MANAGER_BSC; until contracts are deployed the
 * defaults are fixed addresses derived from the project's name, so signatures stay verifiable.
 */
import { getAddress, keccak256, stringToBytes, type Address } from 'viem';
import type { EvmChain } from '../signing';

export type TokenManagers = Record<EvmChain, Address>;

function derivedAddress(chain: EvmChain): Address {
  return getAddress(`0x${keccak256(stringToBytes(`TokenizedStockIssuer:TokenManager:${chain}`)).slice(-40)}`);
}

export function tokenManagers(configured: { ethereum?: string; bsc?: string } = {}): TokenManagers {
  return {
    'ethereum-1': configured.ethereum ? getAddress(configured.ethereum) : derivedAddress('ethereum-1'),
    'bsc-56': configured.bsc ? getAddress(configured.bsc) : derivedAddress('bsc-56'),
  };
}
