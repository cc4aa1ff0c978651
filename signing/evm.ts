/**
 * EIP-712 signing of attestation quotes for EVM chains. The token manager contract on each chain
 * recovers the signer from `(quote, signature)` under the domain built here, so the domain name,
 * version, type string and field order must match the contract byte for byte.
 */
import {
  bytesToHex,
  getAddress,
  hashTypedData,
  hexToBytes,
  isAddress,
  recoverTypedDataAddress,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { bareChainId, isEvmChain, type EvmChain } from '../domain/chains';
import { InvalidQuoteError, assertEvmQuote, type Quote } from './quote';

/** EIP-712 domain name: the project's own name (the reference issuer uses its token manager's name). */
export const EIP712_DOMAIN_NAME = 'TokenizedStockIssuerTokenManager';
export const EIP712_DOMAIN_VERSION = '1';

/** The type string the contract hashes into its `QUOTE_TYPEHASH`. */
export const QUOTE_TYPE =
  'Quote(uint256 chainId,uint256 attestationId,bytes32 userId,address asset,uint256 price,uint256 quantity,uint256 expiration,uint8 side,bytes32 additionalData)';

/** The same type in viem's form; field order is the order of `QUOTE_TYPE`. */
export const QUOTE_TYPES = {
  Quote: [
    { name: 'chainId', type: 'uint256' },
    { name: 'attestationId', type: 'uint256' },
    { name: 'userId', type: 'bytes32' },
    { name: 'asset', type: 'address' },
    { name: 'price', type: 'uint256' },
    { name: 'quantity', type: 'uint256' },
    { name: 'expiration', type: 'uint256' },
    { name: 'side', type: 'uint8' },
    { name: 'additionalData', type: 'bytes32' },
  ],
} as const;

export interface QuoteDomain {
  name: string;
  version: string;
  chainId: bigint;
  verifyingContract: Address;
}

/** Anything that signs EIP-712 typed data like a viem account (a local key, or a KMS-backed `toAccount`). */
export type TypedDataSigner = Pick<LocalAccount, 'signTypedData'>;

/** The signing domain for a named EVM chain and the token manager contract deployed on it. */
export function evmDomain(chain: EvmChain, verifyingContract: string): QuoteDomain {
  if (!isEvmChain(chain)) throw new Error(`unknown EVM chain ${String(chain)}`);
  const chainId = bareChainId(chain);
  if (!isAddress(verifyingContract)) {
    throw new Error(`verifyingContract for ${chain} is not an EVM address: ${verifyingContract}`);
  }
  return {
    name: EIP712_DOMAIN_NAME,
    version: EIP712_DOMAIN_VERSION,
    chainId,
    verifyingContract: getAddress(verifyingContract),
  };
}

function typedData(quote: Quote, domain: QuoteDomain) {
  return {
    domain,
    types: QUOTE_TYPES,
    primaryType: 'Quote',
    message: { ...quote, asset: getAddress(quote.asset) },
  } as const;
}

function checkQuoteForDomain(quote: Quote, domain: QuoteDomain): void {
  assertEvmQuote(quote);
  if (quote.chainId !== domain.chainId) {
    throw new InvalidQuoteError('chainId', `is ${quote.chainId} but the domain is for chain ${domain.chainId}`);
  }
}

/** The EIP-712 digest a contract computes for this quote (`_hashTypedDataV4(structHash)`). */
export function hashEvmQuote(quote: Quote, domain: QuoteDomain): Hex {
  checkQuoteForDomain(quote, domain);
  return hashTypedData(typedData(quote, domain));
}

/**
 * Signs a quote with EIP-712 and returns the 65-byte `r‖s‖v` signature (v is 27 or 28, the form
 * OpenZeppelin's `ECDSA.recover` accepts). Refuses a quote whose chain id differs from the domain's.
 */
export async function signEvmQuote(signer: TypedDataSigner, quote: Quote, domain: QuoteDomain): Promise<Uint8Array> {
  checkQuoteForDomain(quote, domain);
  const signature = hexToBytes(await signer.signTypedData(typedData(quote, domain)));
  if (signature.length !== 65) throw new Error(`EIP-712 signer returned ${signature.length} bytes, expected 65`);
  return signature;
}

/**
 * Recovers the address that signed `quote` under `domain`, as the contract's `ECDSA.recover` does:
 * any other domain or field value yields some other address. Like the contract, callers must also
 * compare `quote.chainId` with the chain they are on; this function does not require them to agree.
 */
export async function recoverEvmQuoteSigner(
  quote: Quote,
  domain: QuoteDomain,
  signature: Uint8Array | Hex,
): Promise<Address> {
  assertEvmQuote(quote);
  const hex = typeof signature === 'string' ? signature : bytesToHex(signature);
  return recoverTypedDataAddress({ ...typedData(quote, domain), signature: hex });
}
