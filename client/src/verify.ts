/**
 * Verifying an attestation offline against the published signers (`GET /v1/attestations/signers`), as the product's
 * `npm run verify` does: on EVM chains the EIP-712 signature recovers to the published signer under the chain's
 * domain; on Solana the transaction in `additionalData` carries the issuer's ed25519 signature over its message, and
 * that message is exactly the one the attestation's fields make (rebuilt here, compared byte for byte). Never throws
 * for a bad attestation. viem and `@solana/kit` (optional peers) are loaded when a chain of theirs is checked.
 */
import type { Address, CompiledTransactionMessage, SignatureBytes } from '@solana/kit';
import { base64ToBytes, bytesToHex, chainOfAttestation, type AttestationFields, type Signers as PublishedSigners } from './attestation.ts';
import { CHAINS, QUOTE_TYPES, type Chain } from './generated/contracts.ts';
import type { SolanaIssuerAccounts } from './solana-transaction.ts';

export interface Verification {
  chain: Chain;
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

/** What verifying reads of the published signers (the settlement tokens are the on-chain step's, not needed here). */
export type Signers = { evm: Omit<PublishedSigners['evm'], 'settlementTokens'>; solana: PublishedSigners['solana'] };

type LegacyMessage = Extract<CompiledTransactionMessage, { version: 'legacy' }> & { lifetimeToken?: string };

/** The quote the EIP-712 signature covers, from the attestation's fields. */
export function evmQuoteOf(attestation: AttestationFields) {
  return {
    chainId: BigInt(attestation.chainId),
    attestationId: BigInt(attestation.attestationId),
    userId: attestation.userId as `0x${string}`,
    asset: attestation.assetAddress as `0x${string}`,
    price: BigInt(attestation.price),
    quantity: BigInt(attestation.tokenAmount),
    expiration: BigInt(attestation.expiration),
    side: Number(attestation.side),
    additionalData: bytesToHex(base64ToBytes(attestation.additionalData)),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function verifyEvm(attestation: AttestationFields, signers: Signers, chain: Chain): Promise<Verification> {
  const { getAddress, isAddress, recoverTypedDataAddress } = await import('viem');
  const expected = signers.evm.address;
  const domain = signers.evm.domains[chain];
  if (!domain) return { chain, scheme: 'eip712', valid: false, expected, problem: `no EIP-712 domain is published for ${chain}` };
  let recovered: string;
  try {
    const quote = evmQuoteOf(attestation);
    if (!isAddress(quote.asset)) throw new Error('asset must be an EVM address');
    if (quote.chainId < 1n || quote.price < 1n || quote.quantity < 1n || (quote.side !== 0 && quote.side !== 1)) throw new Error('the quote is out of range');
    recovered = await recoverTypedDataAddress({
      domain: { ...domain, chainId: BigInt(domain.chainId), verifyingContract: getAddress(domain.verifyingContract) },
      types: QUOTE_TYPES,
      primaryType: 'Quote',
      message: { ...quote, asset: getAddress(quote.asset) },
      signature: bytesToHex(base64ToBytes(attestation.signature)),
    });
  } catch (error) {
    recovered = `none (${messageOf(error)})`;
  }
  const valid = recovered === expected;
  return { chain, scheme: 'eip712', valid, expected, recovered, ...(valid ? {} : { problem: `the signature recovers to ${recovered}, not the published signer` }) };
}

/** The issuer's Solana accounts the signers publish, when they publish them all. */
function publishedAccounts(address: (text: string) => Address, signers: Signers): SolanaIssuerAccounts | undefined {
  const { publicKey, stablecoinMint, stablecoinDecimals, treasury, tokenDecimals } = signers.solana;
  if (stablecoinMint === undefined || stablecoinDecimals === undefined || treasury === undefined || tokenDecimals === undefined) return undefined;
  return { issuer: address(publicKey), stablecoinMint: address(stablecoinMint), stablecoinDecimals, treasury: address(treasury), stockDecimals: tokenDecimals };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

async function verifySolana(attestation: AttestationFields, signers: Signers, chain: Chain, userAddress?: string): Promise<Verification> {
  const { address, getCompiledTransactionMessageDecoder, getPublicKeyFromAddress, getTransactionDecoder, verifySignature } = await import('@solana/kit');
  const { rebuildSolanaAttestationTransaction } = await import('./solana-transaction.ts');
  const expected = signers.solana.publicKey;
  const result = (valid: boolean, problem?: string, found: Pick<Verification, 'user' | 'nonceAccount' | 'nonce'> = {}): Verification => ({
    chain, scheme: 'ed25519', valid, expected, ...(problem === undefined ? {} : { problem }), ...(found.user ? found : {}),
  });
  let messageBytes: Uint8Array;
  let message: LegacyMessage;
  let issuerSignature: Uint8Array | null | undefined;
  try {
    const transaction = getTransactionDecoder().decode(base64ToBytes(attestation.additionalData));
    messageBytes = Uint8Array.from(transaction.messageBytes);
    const decoded = getCompiledTransactionMessageDecoder().decode(messageBytes);
    if (decoded.version !== 'legacy') return result(false, `the transaction message is version ${decoded.version}, not the legacy message the issuer signs`);
    message = decoded;
    issuerSignature = transaction.signatures[expected as Address];
  } catch {
    return result(false, '`additionalData` is not a Solana wire transaction');
  }
  const accounts = publishedAccounts(address, signers);
  if (!accounts) throw new Error("a Solana attestation's transaction is checked against the issuer's stablecoin mint and treasury: the signers publish none");
  const user = message.staticAccounts[0];
  const advance = message.instructions[0];
  const nonceAccount = advance?.accountIndices?.[0] === undefined ? undefined : message.staticAccounts[advance.accountIndices[0]];
  const nonce = message.lifetimeToken;
  const found = { user, nonceAccount, nonce };
  if (!user || !nonceAccount || !nonce) return result(false, 'the transaction does not start by advancing a durable nonce', found);
  let signature: Uint8Array;
  try {
    signature = base64ToBytes(attestation.signature);
  } catch {
    return result(false, 'signature is not base64', found);
  }
  if (!issuerSignature || !equalBytes(issuerSignature, signature)) return result(false, `the transaction does not carry this signature for the issuer ${expected}`, found);
  const signed = await getPublicKeyFromAddress(accounts.issuer)
    .then((key) => verifySignature(key, signature as SignatureBytes, messageBytes))
    .catch(() => false);
  if (!signed) return result(false, "the issuer's ed25519 signature does not verify over the transaction message", found);
  if (userAddress !== undefined && userAddress !== user) return result(false, `the transaction is built for ${user}, not for ${userAddress}`, found);
  if (attestation.side !== '0' && attestation.side !== '1') return result(false, `side ${attestation.side} is neither 0 nor 1`, found);
  let rebuilt: Uint8Array;
  try {
    rebuilt = Uint8Array.from((await rebuildSolanaAttestationTransaction(attestation, accounts, { user, nonceAccount, nonce })).messageBytes);
  } catch (error) {
    return result(false, `the attestation's fields do not make a transaction (${messageOf(error)})`, found);
  }
  if (!equalBytes(rebuilt, messageBytes)) return result(false, "the transaction is not the attestation's", found);
  return result(true, undefined, found);
}

/**
 * Checks the attestation against the published signers, offline. On Solana, `userAddress` (the wallet the
 * attestation was asked for) must be the transaction's fee payer when given.
 */
export async function verifyAttestation(attestation: AttestationFields, signers: Signers, options: { userAddress?: string } = {}): Promise<Verification> {
  const chain = chainOfAttestation(attestation);
  if (!chain) throw new Error(`chainId ${attestation.chainId} is no chain of the product`);
  return CHAINS[chain].kind === 'evm' ? verifyEvm(attestation, signers, chain) : verifySolana(attestation, signers, chain, options.userAddress);
}
