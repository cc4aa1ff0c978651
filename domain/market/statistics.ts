/**
 * Market statistics the API reports: 24-hour change, dividend payout frequency and dividend yield.
 */
import { addDays, newYorkDate } from '../calendar';
import { Decimal, type DecimalInput, Rounding, formatDecimal, toDecimal } from '../money';

/** Decimals of `priceChangePct24h`. */
export const PERCENT_DECIMALS = 4;
/** Decimals of a dividend yield. */
export const YIELD_DECIMALS = 18;

export interface Change24h {
  /** current − window-start price, exact, as a canonical decimal string. */
  priceChange24h: string;
  /**
   * The change in percent of the window-start price, rounded half-even to 4 decimals:
   * "1.2345" means +1.2345 %. "0" when the window-start price is zero.
   */
  priceChangePct24h: string;
}

/** Change of the price since the start of the 24-hour window (see {@link Change24h} for the units). */
export function change24h(current: DecimalInput, windowStartPrice: DecimalInput): Change24h {
  const now = toDecimal(current);
  const start = toDecimal(windowStartPrice);
  const change = now.minus(start);
  const pct = start.isZero() ? new Decimal(0) : change.dividedBy(start).times(100);
  return {
    priceChange24h: formatDecimal(change),
    priceChangePct24h: formatDecimal(pct, PERCENT_DECIMALS, Rounding.HALF_EVEN),
  };
}

export type PayoutFrequency = 'monthly' | 'quarterly' | 'semi-annually' | 'annually' | 'irregular' | 'none';

/** Payout frequency looks at dividends paid within this many days (about two years). */
export const PAYOUT_WINDOW_DAYS = 730;

/** Average-gap classes of the spec, in days, bounds inclusive. */
const PAYOUT_CLASSES: readonly { frequency: PayoutFrequency; minDays: number; maxDays: number }[] = [
  { frequency: 'monthly', minDays: 25, maxDays: 35 },
  { frequency: 'quarterly', minDays: 80, maxDays: 100 },
  { frequency: 'semi-annually', minDays: 160, maxDays: 200 },
  { frequency: 'annually', minDays: 345, maxDays: 385 },
];

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(ms)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return ms / DAY_MS;
}

/**
 * Classifies how often a dividend is paid by the average number of days between consecutive
 * payment dates within the last {@link PAYOUT_WINDOW_DAYS} days: monthly 25–35, quarterly 80–100,
 * semi-annually 160–200, annually 345–385 (inclusive), anything else irregular.
 *
 * The window ends at the New York date of `now` (payments after it are ignored) or, without `now`,
 * at the latest payment date given. No payment in the window: `none` (not applicable). Exactly one:
 * `irregular`, since the asset does pay but shows no cadence yet (a one-off special dividend, or a
 * newly initiated payer).
 */
export function payoutFrequency(paymentDates: readonly string[], now?: number): PayoutFrequency {
  const days = [...new Set(paymentDates.map(dayNumber))].sort((a, b) => a - b);
  const windowEnd = now === undefined ? days[days.length - 1] : dayNumber(newYorkDate(now));
  if (windowEnd === undefined) return 'none';
  const inWindow = days.filter((day) => day <= windowEnd && day > windowEnd - PAYOUT_WINDOW_DAYS);
  const first = inWindow[0];
  const last = inWindow[inWindow.length - 1];
  if (first === undefined || last === undefined) return 'none';
  const gaps = inWindow.length - 1;
  if (gaps === 0) return 'irregular';
  // Compare span / gaps against the bounds without division, so boundaries are exact.
  const span = last - first;
  const match = PAYOUT_CLASSES.find((c) => span >= c.minDays * gaps && span <= c.maxDays * gaps);
  return match?.frequency ?? 'irregular';
}

/**
 * Trailing dividend yield: cash amounts with an ex-date in the 365 days up to the New York date of
 * `now` (inclusive), divided by the current price; 18 decimals rounded down. 0.05 means 5 %.
 * Zero when the price is not positive.
 */
export function dividendYield(
  dividends: readonly { exDate: string; cashAmount: string }[],
  now: number,
  currentPrice: DecimalInput,
): Decimal {
  const price = toDecimal(currentPrice);
  if (!price.isPositive() || price.isZero()) return new Decimal(0);
  const today = newYorkDate(now);
  const yearAgo = addDays(today, -365);
  let cash = new Decimal(0);
  for (const dividend of dividends) {
    if (dividend.exDate > yearAgo && dividend.exDate <= today) cash = cash.plus(toDecimal(dividend.cashAmount));
  }
  return cash.dividedBy(price).toDecimalPlaces(YIELD_DECIMALS, Rounding.DOWN);
}
