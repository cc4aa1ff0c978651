/**
 * The public side of the attestation signers, as written to `.data/stack.json` under "signers" and
 * shown in the README: everything a third party needs to verify a signature, nothing secret.
 */
import { type Address } from 'viem';
import type { SettlementTokens } from '../chains/settlement-tokens';
import type { EvmChain } from '../domain/chains';
import { evmDomain } from './evm';
import { type Signers } from './keys';
import { SOLANA_ATTESTATION_MESSAGE } from './solana';
import type { SolanaIssuerAccounts } from './solana-transaction';

/** An EIP-712 domain in JSON form; `chainId` is a number, as wallets and EIP-712 tooling take it. */
export interface PublicDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

export interface SignerPublicInfo {
  /** One domain per EVM chain whose token manager is deployed. */
  evm: {
    address: Address;
    domains: Partial<Record<EvmChain, PublicDomain>>;
    /** The stablecoin a mint pays in and a redemption is paid in, per chain where its decimals could be read (absent in older copies). */
    settlementTokens?: SettlementTokens;
  };
  /**
   * The issuer's Solana key, what it signs, and what an attestation's transaction is checked against (the stablecoin
   * mint and its decimals, the treasury, the stock tokens' decimals); those are absent where the API was given no
   * Solana accounts.
   */
  solana: { publicKey: string; message: string } & Partial<PublishedSolanaAccounts>;
}

/** The issuer's Solana accounts a verifier needs besides its key. */
export type PublishedSolanaAccounts = Pick<SolanaIssuerAccounts, 'stablecoinMint' | 'stablecoinDecimals' | 'treasury'> & { tokenDecimals: number };

/**
 * The signers' public description, given the token manager contract deployed on each EVM chain, the issuer's Solana
 * accounts and the settlement token of each EVM chain.
 */
export function signerPublicInfo(
  signers: Signers,
  verifyingContracts: Partial<Record<EvmChain, string>>,
  solana?: PublishedSolanaAccounts,
  settlementTokens: SettlementTokens = {},
): SignerPublicInfo {
  const domains: Partial<Record<EvmChain, PublicDomain>> = {};
  for (const [chain, contract] of Object.entries(verifyingContracts) as [EvmChain, string][]) {
    const { name, version, chainId, verifyingContract } = evmDomain(chain, contract);
    domains[chain] = { name, version, chainId: Number(chainId), verifyingContract };
  }
  return {
    evm: { address: signers.evm.address, domains, settlementTokens },
    solana: {
      publicKey: signers.solana.publicKey,
      message: SOLANA_ATTESTATION_MESSAGE,
      ...(solana && { stablecoinMint: solana.stablecoinMint, stablecoinDecimals: solana.stablecoinDecimals, treasury: solana.treasury, tokenDecimals: solana.tokenDecimals }),
    },
  };
}
