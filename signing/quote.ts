/**
 * The attestation `Quote`: the fields an issuer signs to authorise one user to mint (side 0) or
 * redeem (side 1) a quantity of a token at a price until an expiration. The same fields are signed
 * with EIP-712 on EVM chains (see `evm.ts`) and with ed25519 over a fixed byte layout on Solana
 * (see `solana.ts`). Amounts are bigint base units here: never a JS number.
 */
import { isAddress, isHex, type Hex } from 'viem';

/** Sides as the chain sees them: 0 = buy (mint), 1 = sell (redeem). */
export const QUOTE_SIDE = { buy: 0, sell: 1 } as const;
export type QuoteSide = (typeof QUOTE_SIDE)[keyof typeof QUOTE_SIDE];

/** Price and quantity are integers scaled by 10^18. */
export const QUOTE_DECIMALS = 18;

export interface Quote {
  /** Bare chain id: 1 (Ethereum), 56 (BSC), 900 (Solana). */
  chainId: bigint;
  /** Unique 128-bit identifier. */
  attestationId: bigint;
  /** On-chain user id (an association of wallets), bytes32 hex. */
  userId: Hex;
  /** Token: an EVM address on EVM chains, a base58 mint address on Solana. */
  asset: string;
  /** Price per token in the settlement stable token, scaled by 10^18. */
  price: bigint;
  /** Token quantity, scaled by 10^18. */
  quantity: bigint;
  /** Epoch seconds after which the quote is refused on-chain. */
  expiration: bigint;
  side: QuoteSide;
  /** Extra data, bytes32 hex (all zeros when unused). */
  additionalData: Hex;
}

export const ZERO_BYTES32: Hex = `0x${'00'.repeat(32)}`;

/** Upper bounds (exclusive) shared by both encodings, so a quote valid on one chain family is valid on the other. */
export const QUOTE_LIMITS = {
  chainId: 1n << 64n,
  attestationId: 1n << 128n,
  amount: 1n << 128n,
  expiration: 1n << 63n,
} as const;

/** A quote that cannot be signed; `field` names the offending field. */
export class InvalidQuoteError extends Error {
  override readonly name = 'InvalidQuoteError';
  constructor(
    readonly field: keyof Quote,
    message: string,
  ) {
    super(`invalid quote ${field}: ${message}`);
  }
}

function inRange(field: keyof Quote, value: unknown, min: bigint, maxExclusive: bigint): void {
  if (typeof value !== 'bigint') throw new InvalidQuoteError(field, 'must be a bigint');
  if (value < min || value >= maxExclusive) {
    throw new InvalidQuoteError(field, `must be in [${min}, ${maxExclusive})`);
  }
}

function bytes32(field: keyof Quote, value: unknown): void {
  if (typeof value !== 'string' || !isHex(value, { strict: true }) || value.length !== 66) {
    throw new InvalidQuoteError(field, 'must be 0x followed by 64 hex digits');
  }
}

/**
 * Checks every field except `asset` (whose format depends on the chain family): ranges that both
 * encodings can hold, 32-byte hex strings, side 0 or 1, strictly positive price and quantity.
 */
export function assertQuoteFields(quote: Quote): void {
  inRange('chainId', quote.chainId, 1n, QUOTE_LIMITS.chainId);
  inRange('attestationId', quote.attestationId, 0n, QUOTE_LIMITS.attestationId);
  bytes32('userId', quote.userId);
  if (typeof quote.asset !== 'string' || quote.asset.length === 0) {
    throw new InvalidQuoteError('asset', 'must be a non-empty string');
  }
  inRange('price', quote.price, 1n, QUOTE_LIMITS.amount);
  inRange('quantity', quote.quantity, 1n, QUOTE_LIMITS.amount);
  inRange('expiration', quote.expiration, 0n, QUOTE_LIMITS.expiration);
  if (quote.side !== 0 && quote.side !== 1) throw new InvalidQuoteError('side', 'must be 0 (buy) or 1 (sell)');
  bytes32('additionalData', quote.additionalData);
}

/** Checks a quote meant for an EVM chain: the common fields and an EVM `asset` address. */
export function assertEvmQuote(quote: Quote): void {
  assertQuoteFields(quote);
  if (!isAddress(quote.asset)) {
    throw new InvalidQuoteError('asset', 'must be an EVM address (lower-case or correctly checksummed)');
  }
}
