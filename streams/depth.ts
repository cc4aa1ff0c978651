/**
 * The indicative depth of an asset (StreamSoftQuoteDepth): the soft-quote pricing laid out as a ladder. The largest
 * order the running session allows (the asset's active and session notional limits, capped at
 * LIMITED_MAX_ORDER_NOTIONAL while the asset is ASSET_LIMITED) is cut into DEPTH_LEVELS equal slices of notional;
 * the first slice is priced with the short spread, the last with the long spread, those between in equal steps, so
 * the spread widens with size. Asks are the mint side (mid plus spread, rounded up), bids the redeem side (mid minus
 * spread, rounded down), each level's quantity the tokens its slice buys at its price. An asset that cannot be quoted
 * now (paused, closed for the session, no current price) has the refusal a soft quote would get as its `error` and
 * no levels; while minting waits for reserves, asks are empty.
 */
import type { AssetRecord } from '../db/queries/assets';
import type { Queryable } from '../db/pool';
import { Decimal, Rounding } from '../domain/money';
import { QUOTE_DECIMALS, tokenAmountForNotional, type PricingPolicy } from '../domain/pricing';
import { pricingPolicy } from '../attestations/price-request';
import { loadTradingStatus } from '../attestations/trading-status';
import { nanoseconds, type SoftQuoteDepthMessage } from './backend-proto';

export const DEPTH_LEVELS = 5;

export interface DepthPolicy {
  /** A latest price older than this is not quoted (QUOTE_MAX_PRICE_AGE_MS). */
  maxPriceAgeMs: number;
  /** Largest order while an asset is ASSET_LIMITED (LIMITED_MAX_ORDER_NOTIONAL). */
  limitedMaxOrderNotional: string;
}

const BPS = new Decimal(10_000);

export async function softQuoteDepth(db: Queryable, asset: AssetRecord, now: number, policy: DepthPolicy): Promise<SoftQuoteDepthMessage> {
  const { status, context } = await loadTradingStatus(db, asset, now);
  const depth = { symbol: asset.symbol, ticker: asset.ticker, sessionType: status.session, error: '', timestamp: nanoseconds(now), bids: [], asks: [] };
  if (status.restriction) return { ...depth, error: `${status.restriction.code}: ${status.restriction.message}` };
  const pricing = pricingPolicy(context);
  if (context.tokenPrice === null || context.priceObservedAt === null || now - context.priceObservedAt > policy.maxPriceAgeMs || !pricing) {
    return { ...depth, error: `PRICE_UNAVAILABLE: No current price for ${asset.symbol}; retry shortly` };
  }
  const caps = [status.sessionLimit.maxActiveNotionalValue, status.sessionLimit.maxSessionNotionalValue, ...(status.limited ? [policy.limitedMaxOrderNotional] : [])];
  const largest = Decimal.min(...caps.map((cap) => new Decimal(cap)));
  if (largest.lte(0)) return { ...depth, error: `SESSION_LIMIT_REACHED: ${asset.symbol} has no notional to trade in the ${status.session} session` };
  const { bids, asks } = depthLadder(new Decimal(context.tokenPrice), pricing, largest);
  return { ...depth, bids, asks: context.reservesPauseReason === null ? asks : [] };
}

/** The ladder around `mid` for orders up to `largest` (USD notional): DEPTH_LEVELS levels a side, best first. */
export function depthLadder(mid: Decimal, pricing: Pick<PricingPolicy, 'shortSpreadBps' | 'longSpreadBps'>, largest: Decimal): Pick<SoftQuoteDepthMessage, 'bids' | 'asks'> {
  const slice = largest.dividedBy(DEPTH_LEVELS);
  const bids: SoftQuoteDepthMessage['bids'] = [];
  const asks: SoftQuoteDepthMessage['asks'] = [];
  for (let level = 0; level < DEPTH_LEVELS; level++) {
    const spreadBps = pricing.shortSpreadBps + ((pricing.longSpreadBps - pricing.shortSpreadBps) * level) / (DEPTH_LEVELS - 1);
    const spread = new Decimal(spreadBps).dividedBy(BPS);
    const ask = mid.times(Decimal.add(1, spread)).toDecimalPlaces(QUOTE_DECIMALS, Rounding.UP);
    const bid = mid.times(Decimal.sub(1, spread)).toDecimalPlaces(QUOTE_DECIMALS, Rounding.DOWN);
    asks.push({ price: ask.toFixed(QUOTE_DECIMALS), quantity: tokenAmountForNotional(slice, ask).toFixed(QUOTE_DECIMALS) });
    if (bid.gt(0)) bids.push({ price: bid.toFixed(QUOTE_DECIMALS), quantity: tokenAmountForNotional(slice, bid).toFixed(QUOTE_DECIMALS) });
  }
  return { bids, asks };
}
