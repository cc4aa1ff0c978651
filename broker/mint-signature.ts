/**
 * The broker's EIP-712 signature over a mint request, as the issuer contract's `processMint` checks it (the domain,
 * types and signing are `contracts/mint-request.ts`): the request on the network's chain and issuer contract, `qty`
 * scaled by 1e9 (exact: at most nine decimals), `clientAccountId` the issuer's client id, `created` epoch seconds,
 * `nonce` a random uint256.
 */
import { randomBytes } from 'node:crypto';
import type { Address, Hex, LocalAccount } from 'viem';
import { ISSUER_EIP712_DOMAIN_NAME, ISSUER_EIP712_DOMAIN_VERSION, MINT_REQUEST_TYPES, type MintRequest } from '../contracts/mint-request';
import { Decimal } from '../domain/money';
import { NETWORK_CHAIN_IDS, type Network } from './fields';

export { MINT_REQUEST_TYPES };

/** Share quantity units per share in a signed mint request. */
export const QTY_SCALE = new Decimal('1e9');

export interface MintRequestFields {
  tokenizationRequestId: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  /** Decimal string, at most nine decimals. */
  qty: string;
  wallet: Address;
  network: Network;
  clientAccountId: string;
  created: number;
  nonce: bigint;
}

/** `qty` in 1e-9 share units; refuses a quantity with more than nine decimals instead of rounding it. */
export function scaledQty(qty: string): bigint {
  const scaled = new Decimal(qty).times(QTY_SCALE);
  if (!scaled.isInteger() || scaled.lte(0)) throw new Error(`qty ${qty} is not a positive quantity with at most nine decimals`);
  return BigInt(scaled.toFixed(0));
}

/** A fresh uint256 nonce. */
export function newMintNonce(): bigint {
  return BigInt(`0x${randomBytes(32).toString('hex')}`);
}

function mintRequestOf(fields: MintRequestFields): MintRequest {
  return { ...fields, qty: scaledQty(fields.qty), created: BigInt(fields.created) };
}

/** The typed data a mint request is signed as (for viem's sign, verify and recover functions). */
export function mintRequestTypedData(fields: MintRequestFields, verifyingContract: Address) {
  return {
    domain: { name: ISSUER_EIP712_DOMAIN_NAME, version: ISSUER_EIP712_DOMAIN_VERSION, chainId: NETWORK_CHAIN_IDS[fields.network], verifyingContract },
    types: MINT_REQUEST_TYPES,
    primaryType: 'MintRequest' as const,
    message: mintRequestOf(fields),
  };
}

/** The 65-byte r‖s‖v signature, 0x hex. */
export async function signMintRequest(signer: LocalAccount, fields: MintRequestFields, verifyingContract: Address): Promise<Hex> {
  if (!signer.signTypedData) throw new Error('the broker signer cannot sign typed data');
  return signer.signTypedData(mintRequestTypedData(fields, verifyingContract));
}
