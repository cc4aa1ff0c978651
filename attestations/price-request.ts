/**
 * Prices a quote request for an asset: refuses it when the asset cannot trade now or the price is
 * stale, then applies the asset's spread for the side and duration and converts between token
 * amount and notional. Shared by soft quotes and attestations.
 */
import type { AssetRecord } from '../db/queries/assets';
import { findAssetPricing } from '../db/queries/attestations';
import { listAddresses } from '../db/queries/assets';
import { listLatestPrices } from '../db/queries/market-data';
import type { Queryable } from '../db/pool';
import { Decimal } from '../domain/money';
import { notionalOf, quotePrice, tokenAmountForNotional, type PricingPolicy } from '../domain/pricing';
import { AttestationRefused } from './errors';
import type { Chain, SoftQuoteRequest } from './request';
import { tradingStatus, type TradingStatus } from './trading-status';

export interface PricedRequest {
  asset: AssetRecord;
  chain: Chain;
  side: 'buy' | 'sell';
  duration: 'short' | 'long';
  assetAddress: string;
  policy: PricingPolicy;
  status: TradingStatus;
  /** The token price quoted (mid with spread), 18 decimals. */
  price: Decimal;
  tokenAmount: Decimal;
  /** USD value counted against limits. */
  notional: Decimal;
}

export interface PricingContext {
  db: Queryable;
  now: number;
  /** A latest price older than this is not quoted. */
  maxPriceAgeMs: number;
}

export async function priceRequest(context: PricingContext, asset: AssetRecord, request: SoftQuoteRequest): Promise<PricedRequest> {
  const { db, now } = context;
  const [status, prices, policy, addresses] = await Promise.all([
    tradingStatus(db, asset, now),
    listLatestPrices(db),
    findAssetPricing(db, asset.symbol),
    listAddresses(db, asset.symbol),
  ]);
  if (status.restriction) throw new AttestationRefused(status.restriction.code, status.restriction.message);
  const latest = prices.find((price) => price.symbol === asset.symbol);
  if (!latest || now - latest.observedAt > context.maxPriceAgeMs) {
    throw new AttestationRefused('PRICE_UNAVAILABLE', `No current price for ${asset.symbol}; retry shortly`);
  }
  const address = addresses.find((candidate) => candidate.networkChainId === request.chainId);
  if (!policy || !address) throw new Error(`${asset.symbol} has no pricing or no ${request.chainId} address configured`);

  const price = quotePrice(new Decimal(latest.tokenPrice), request.side, request.duration, policy);
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
    assetAddress: address.address,
    policy,
    status,
    price,
    tokenAmount,
    notional: notionalOf(tokenAmount, price),
  };
}
