/**
 * Quote pricing: a spread around the mid (token) price that is tighter for `short` and wider for
 * `long`, and the amount conversions. Every rounding favours the issuer's books: a buyer pays the
 * price rounded up, a seller receives it rounded down, a notional buys the token amount rounded down,
 * and the notional counted against limits is rounded up.
 */
import { Decimal, Rounding } from './money';

export type Side = 'buy' | 'sell';
export type Duration = 'short' | 'long';

export interface PricingPolicy {
  shortSpreadBps: number;
  longSpreadBps: number;
  shortTtlSeconds: number;
  longTtlSeconds: number;
}

/** Decimals of prices and token amounts in attestations (the scaled-integer form uses the same). */
export const QUOTE_DECIMALS = 18;

const BPS = new Decimal(10_000);

/** The price a quote carries: mid × (1 ± spread), up for buys and down for sells, 18 decimals. */
export function quotePrice(mid: Decimal, side: Side, duration: Duration, policy: PricingPolicy): Decimal {
  const spread = new Decimal(duration === 'short' ? policy.shortSpreadBps : policy.longSpreadBps).dividedBy(BPS);
  return side === 'buy'
    ? mid.times(Decimal.add(1, spread)).toDecimalPlaces(QUOTE_DECIMALS, Rounding.UP)
    : mid.times(Decimal.sub(1, spread)).toDecimalPlaces(QUOTE_DECIMALS, Rounding.DOWN);
}

/** Tokens that a USD notional buys or sells at `price`, rounded down to 18 decimals. */
export function tokenAmountForNotional(notional: Decimal, price: Decimal): Decimal {
  return notional.dividedBy(price).toDecimalPlaces(QUOTE_DECIMALS, Rounding.DOWN);
}

/** USD notional of a token amount at `price`, rounded up (what counts against limits). */
export function notionalOf(tokenAmount: Decimal, price: Decimal): Decimal {
  return tokenAmount.times(price).toDecimalPlaces(QUOTE_DECIMALS, Rounding.UP);
}

/** Expiration in whole epoch seconds: now (rounded down to the second) plus the duration's validity. */
export function expirationSeconds(now: number, duration: Duration, policy: PricingPolicy): number {
  return Math.floor(now / 1000) + (duration === 'short' ? policy.shortTtlSeconds : policy.longTtlSeconds);
}
