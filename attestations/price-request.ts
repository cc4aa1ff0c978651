/**
 * Prices a quote request for an asset: refuses it when its chain is paused, the asset cannot trade now or the price is
 * stale, then applies the asset's spread for the side and duration and converts between token
 * amount and notional. Shared by soft quotes and attestations.
 */
import type { AssetRecord } from '../db/queries/assets';
import type { Queryable } from '../db/pool';
import type { QuoteContextRecord } from '../db/queries/attestations';
import { isEvmChain, type Chain } from '../domain/chains';
import { Decimal } from '../domain/money';
import { notionalOf, quotePrice, tokenAmountForNotional, type PricingPolicy } from '../domain/pricing';
import { AttestationRefused } from './errors';
import type { SoftQuoteRequest } from './request-schema';
import { loadTradingStatus, type TradingStatus } from './trading-status';

export interface PricedRequest {
  asset: AssetRecord;
  chain: Chain;
  side: 'buy' | 'sell';
  duration: 'short' | 'long';
  assetAddress: string;
  /** The chain's token manager (the EIP-712 verifyingContract); null on Solana. */
  tokenManager: `0x${string}` | null;
  policy: PricingPolicy;
  status: TradingStatus;
  /** The token price quoted (mid with spread), 18 decimals. */
  price: Decimal;
  tokenAmount: Decimal;
  /** USD value counted against limits. */
  notional: Decimal;
  /** Why minting the asset is paused for its reserves, when it is. */
  reservesPauseReason: string | null;
}

export interface PricingContext {
  db: Queryable;
  now: number;
  /** A latest price older than this is not quoted. */
  maxPriceAgeMs: number;
}

/** Why a redeem-only asset refuses a buy (and its trading limits say so for `side=buy`). */
export const REDEEM_ONLY_MESSAGE = (symbol: string): string => `${symbol} is redeem-only for now: it can be sold, not bought`;

/** The asset's pricing policy from its quote context, if it has one. */
export function pricingPolicy(context: QuoteContextRecord): PricingPolicy | undefined {
  const { shortSpreadBps, longSpreadBps, shortTtlSeconds, longTtlSeconds } = context;
  if (shortSpreadBps === null || longSpreadBps === null || shortTtlSeconds === null || longTtlSeconds === null) return undefined;
  return { shortSpreadBps, longSpreadBps, shortTtlSeconds, longTtlSeconds };
}

export async function priceRequest(context: PricingContext, asset: AssetRecord, request: SoftQuoteRequest): Promise<PricedRequest> {
  const { db, ...pricing } = context;
  const { status, context: quote } = await loadTradingStatus(db, asset, pricing.now, request.chainId);
  return priceFromContext(pricing, asset, request, { status, quote });
}

/** Prices the request from the asset's trading status and quote context, already read (see `priceRequest`). */
export function priceFromContext(
  context: Omit<PricingContext, 'db'>,
  asset: AssetRecord,
  request: SoftQuoteRequest,
  { status, quote }: { status: TradingStatus; quote: QuoteContextRecord },
): PricedRequest {
  const { now } = context;
  if (quote.chainPauseReason !== null) throw new AttestationRefused('PAUSED_GM_CHAIN', `chain is paused: ${request.chainId}: ${quote.chainPauseReason}`);
  if (status.restriction) throw new AttestationRefused(status.restriction.code, status.restriction.message);
  if (status.redeemOnly && request.side === 'buy') throw new AttestationRefused('ASSET_REDEEM_ONLY', REDEEM_ONLY_MESSAGE(asset.symbol));
  if (quote.tokenPrice === null || quote.priceObservedAt === null || now - quote.priceObservedAt > context.maxPriceAgeMs) {
    throw new AttestationRefused('PRICE_UNAVAILABLE', `No current price for ${asset.symbol}; retry shortly`);
  }
  const policy = pricingPolicy(quote);
  if (!policy) throw new Error(`${asset.symbol} has no pricing configured`);
  const evm = isEvmChain(request.chainId);
  if (quote.assetAddress === null || (evm && quote.tokenManager === null)) {
    throw new AttestationRefused('CHAIN_UNAVAILABLE', `No ${asset.symbol} contract is deployed on ${request.chainId}`);
  }

  const price = quotePrice(new Decimal(quote.tokenPrice), request.side, request.duration, policy);
  const tokenAmount =
    request.tokenAmount !== undefined ? new Decimal(request.tokenAmount) : tokenAmountForNotional(new Decimal(request.notionalValue!), price);
  if (tokenAmount.isZero()) {
    throw new AttestationRefused('INVALID_NOTIONAL_VALUE', `notionalValue buys less than 1e-18 ${asset.symbol} at ${price.toFixed()}`);
  }
  return {
    asset,
    chain: request.chainId,
    side: request.side,
    duration: request.duration,
    assetAddress: quote.assetAddress,
    tokenManager: quote.tokenManager,
    policy,
    status,
    price,
    tokenAmount,
    notional: notionalOf(tokenAmount, price),
    reservesPauseReason: quote.reservesPauseReason,
  };
}
