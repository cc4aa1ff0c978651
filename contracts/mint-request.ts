/**
 * The partner's `MintRequest` as the issuer contract verifies it: EIP-712 domain, types, and the
 * broker's signature over it (what the brokerage partner signs before the issuer may mint).
 */
import { getAddress, type Address, type Hex, type LocalAccount } from 'viem';

export const ISSUER_EIP712_DOMAIN_NAME = 'TokenizedStockIssuer';
export const ISSUER_EIP712_DOMAIN_VERSION = '1';

/** The type string the contract hashes into `MINT_REQUEST_TYPEHASH`. */
export const MINT_REQUEST_TYPE =
  'MintRequest(string tokenizationRequestId,string underlyingSymbol,string tokenSymbol,uint256 qty,address wallet,string network,string clientAccountId,uint256 created,uint256 nonce)';

export const MINT_REQUEST_TYPES = {
  MintRequest: [
    { name: 'tokenizationRequestId', type: 'string' },
    { name: 'underlyingSymbol', type: 'string' },
    { name: 'tokenSymbol', type: 'string' },
    { name: 'qty', type: 'uint256' },
    { name: 'wallet', type: 'address' },
    { name: 'network', type: 'string' },
    { name: 'clientAccountId', type: 'string' },
    { name: 'created', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

export interface MintRequest {
  tokenizationRequestId: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  /** Share quantity with 9 decimals. */
  qty: bigint;
  wallet: Address;
  /** The partner's network name (`ethereum`, `binance`). */
  network: string;
  clientAccountId: string;
  /** Epoch seconds. */
  created: bigint;
  /** Unique per broker signer. */
  nonce: bigint;
}

/** The domain of the issuer contract deployed at `issuer` on chain `chainId`. */
export function issuerDomain(chainId: number | bigint, issuer: Address) {
  return {
    name: ISSUER_EIP712_DOMAIN_NAME,
    version: ISSUER_EIP712_DOMAIN_VERSION,
    chainId: BigInt(chainId),
    verifyingContract: getAddress(issuer),
  } as const;
}

/** The broker's 65-byte r‖s‖v EIP-712 signature over `request`, as `processMint` takes it. */
export async function signMintRequest(
  signer: Pick<LocalAccount, 'signTypedData'>,
  request: MintRequest,
  domain: ReturnType<typeof issuerDomain>,
): Promise<Hex> {
  return signer.signTypedData({ domain, types: MINT_REQUEST_TYPES, primaryType: 'MintRequest', message: request });
}
