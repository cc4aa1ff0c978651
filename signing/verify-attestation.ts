/**
 * Verifying an attestation as a third party does: the quote rebuilt from the fields the API answered, its signature
 * checked against the published signers (GET /v1/attestations/signers) — EIP-712 recovery on EVM chains; on Solana
 * the issuer's ed25519 signature over the transaction message in `additionalData`, that message being the one the
 * attestation's fields make (verify-solana-transaction.ts). `npm run verify` wraps it.
 */
import { getAddress, type Hex } from 'viem';
import { CHAINS, bareChainId, isEvmChain, type Chain } from '../domain/chains';
import { base64ToBytes } from './base64';
import { recoverEvmQuoteSigner } from './evm';
import type { SignerPublicInfo } from './public-info';
import type { Quote, QuoteSide } from './quote';
import { verifySolanaAttestationTransaction } from './verify-solana-transaction';
import type { SolanaIssuerAccounts } from './solana-transaction';
import { getTransactionDecoder } from '@solana/kit';

/** The signed fields of an attestation as the API answers them. */
export interface AttestationFields {
  attestationId: string;
  userId: string;
  chainId: string;
  assetAddress: string;
  side: string;
  tokenAmount: string;
  price: string;
  expiration: number;
  signature: string;
  additionalData: string;
}

export interface Verification {
  chain: Chain;
  /** `eip712` on EVM chains, `ed25519` on Solana. */
  scheme: 'eip712' | 'ed25519';
  valid: boolean;
  /** The published signer. */
  expected: string;
  /** EIP-712: the address the signature recovers to. */
  recovered?: string;
  /** Why it is not valid, when it is not. */
  problem?: string;
  /** Solana: the wallet the transaction is built for, and the durable nonce account and value it lives on. */
  user?: string;
  nonceAccount?: string;
  nonce?: string;
}

/**
 * What a Solana attestation's transaction is checked against besides the published signer: the issuer's stablecoin
 * mint, treasury and decimals, and the stock tokens' decimals (chains/solana-context.ts derives them).
 */
export type SolanaVerificationAccounts = Omit<SolanaIssuerAccounts, 'issuer'> & { stockDecimals: number };

/** Whether `additionalData` holds a Solana wire transaction. */
function carriesSolanaTransaction(additionalData: string): boolean {
  try {
    getTransactionDecoder().decode(base64ToBytes(additionalData));
    return true;
  } catch {
    return false;
  }
}

/** The quote the attestation's signature covers. */
export function quoteOfAttestation(attestation: AttestationFields): Quote {
  return {
    chainId: BigInt(attestation.chainId),
    attestationId: BigInt(attestation.attestationId),
    userId: attestation.userId as Hex,
    asset: attestation.assetAddress,
    price: BigInt(attestation.price),
    quantity: BigInt(attestation.tokenAmount),
    expiration: BigInt(attestation.expiration),
    side: Number(attestation.side) as QuoteSide,
    additionalData: `0x${Buffer.from(base64ToBytes(attestation.additionalData)).toString('hex')}`,
  };
}

/** The Solana accounts the signers publish, when they publish them all. */
function publishedAccounts(signers: SignerPublicInfo): SolanaVerificationAccounts | undefined {
  const { stablecoinMint, stablecoinDecimals, treasury, tokenDecimals } = signers.solana;
  if (stablecoinMint === undefined || stablecoinDecimals === undefined || treasury === undefined || tokenDecimals === undefined) return undefined;
  return { stablecoinMint, stablecoinDecimals, treasury, stockDecimals: tokenDecimals };
}

/**
 * Checks the attestation's signature against the published signers; never throws for a bad signature. A Solana
 * attestation's transaction is checked against `solana`, the issuer's accounts, by default the published ones.
 */
export async function verifyAttestation(attestation: AttestationFields, signers: SignerPublicInfo, solana?: SolanaVerificationAccounts): Promise<Verification> {
  const chain = CHAINS.find((candidate) => String(bareChainId(candidate)) === String(attestation.chainId));
  if (!chain) throw new Error(`chainId ${attestation.chainId} is no chain of the product`);
  if (!isEvmChain(chain)) {
    const expected = signers.solana.publicKey;
    if (!carriesSolanaTransaction(attestation.additionalData)) return { chain, scheme: 'ed25519', valid: false, expected, problem: '`additionalData` is not a Solana wire transaction' };
    const accounts = solana ?? publishedAccounts(signers);
    if (!accounts) throw new Error("a Solana attestation's transaction is checked against the issuer's stablecoin mint and treasury: none given or published");
    const checked = await verifySolanaAttestationTransaction(attestation, { ...accounts, issuer: expected as SolanaIssuerAccounts['issuer'] });
    const { valid, problem, user, nonceAccount, nonce } = checked;
    return { chain, scheme: 'ed25519', valid, expected, ...(problem === undefined ? {} : { problem }), ...(user ? { user, nonceAccount, nonce } : {}) };
  }
  const quote = quoteOfAttestation(attestation);
  const signature = base64ToBytes(attestation.signature);
  const expected = signers.evm.address;
  const domain = signers.evm.domains[chain];
  if (!domain) return { chain, scheme: 'eip712', valid: false, expected, problem: `no EIP-712 domain is published for ${chain}` };
  const recovered = await recoverEvmQuoteSigner(
    quote,
    { ...domain, chainId: BigInt(domain.chainId), verifyingContract: getAddress(domain.verifyingContract) },
    signature,
  ).catch((error: unknown) => `none (${error instanceof Error ? error.message : String(error)})`);
  const valid = recovered === expected;
  return { chain, scheme: 'eip712', valid, expected, recovered, ...(valid ? {} : { problem: `the signature recovers to ${recovered}, not the published signer` }) };
}
