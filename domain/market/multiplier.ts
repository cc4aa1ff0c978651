/**
 * Shares-multiplier history: how many underlying shares one token represents over time. It starts
 * at 1 at listing; each cash dividend after listing is reinvested on its ex-date
 * (multiplier × (1 + cash / previous regular-session close), 18 decimals, rounded down) and each
 * split multiplies it by the split ratio. Both take effect at 09:30 New York on their date, the
 * instant the simulated underlying price is split-adjusted, so the token price stays continuous.
 * Portfolio tokens keep a multiplier of 1.
 */
import { addDays, isTradingDay, newYorkTime, sessionIntervalAt } from '../calendar';
import { DEFAULT_PRICE_SEED, listingTime, singleAssetUnderlyingPrice, splitEffectiveTime } from './single-asset-path';
import { Decimal, Rounding, formatDecimal } from '../money';
import { type AssetDefinition } from '../catalogue/types';
import { memoByAssetAndSeed } from '../catalogue/memo';

/** Why the multiplier changed. */
export type MultiplierReason = 'listing' | 'cash_dividend' | 'stock_split';

/** One value of the multiplier and the earliest instant (epoch ms) it holds. */
export interface MultiplierChange {
  sharesMultiplier: string;
  changeTimestamp: number;
  reason: MultiplierReason;
}

/** Decimals of the shares multiplier. */
export const MULTIPLIER_DECIMALS = 18;

/** One multiplier value and the instant (epoch ms) from which it holds. */
export interface MultiplierStep {
  value: Decimal;
  at: number;
  reason: MultiplierReason;
}


/** The last regular-session price of the underlying on the trading day before `date`. */
export function previousRegularClose(asset: AssetDefinition, date: string, seed: number = DEFAULT_PRICE_SEED): Decimal {
  let day = addDays(date, -1);
  for (let guard = 0; !isTradingDay(day); guard++) {
    if (guard > 30) throw new Error(`no trading day in the 30 days before ${date}`);
    day = addDays(day, -1);
  }
  const regular = sessionIntervalAt(newYorkTime(day, '10:00'));
  return singleAssetUnderlyingPrice(asset, regular.end - 1, seed);
}

function buildHistory(asset: AssetDefinition, seed: number): MultiplierStep[] {
  const steps: MultiplierStep[] = [{ value: new Decimal(1), at: listingTime(asset), reason: 'listing' }];
  if (asset.kind === 'portfolio') return steps;
  const events: { at: number; order: number; apply: (m: Decimal) => Decimal; reason: MultiplierReason }[] = [];
  for (const split of asset.splits) {
    if (split.date <= asset.listedAt) continue;
    const ratio = new Decimal(split.ratio);
    events.push({ at: splitEffectiveTime(split.date), order: 0, reason: 'stock_split', apply: (m) => m.times(ratio) });
  }
  for (const dividend of asset.dividends) {
    if (dividend.exDate <= asset.listedAt) continue;
    const cash = new Decimal(dividend.cashAmount);
    events.push({
      at: newYorkTime(dividend.exDate, '09:30'),
      order: 1,
      reason: 'cash_dividend',
      apply: (m) => m.times(cash.dividedBy(previousRegularClose(asset, dividend.exDate, seed)).plus(1)),
    });
  }
  events.sort((a, b) => a.at - b.at || a.order - b.order);
  let value = new Decimal(1);
  for (const event of events) {
    value = event.apply(value).toDecimalPlaces(MULTIPLIER_DECIMALS, Rounding.DOWN);
    steps.push({ value, at: event.at, reason: event.reason });
  }
  return steps;
}

const stepsOf = memoByAssetAndSeed(buildHistory);

/** The complete multiplier schedule of `asset` (including changes still ahead), oldest first. */
export function multiplierSchedule(asset: AssetDefinition, seed: number = DEFAULT_PRICE_SEED): readonly MultiplierStep[] {
  return stepsOf(asset, seed);
}

/** Every multiplier value that took effect at or before `until` (epoch ms), oldest first. */
export function multiplierHistory(asset: AssetDefinition, until: number, seed: number = DEFAULT_PRICE_SEED): MultiplierChange[] {
  return stepsOf(asset, seed)
    .filter((step) => step.at <= until)
    .map((step) => ({ sharesMultiplier: formatDecimal(step.value, MULTIPLIER_DECIMALS), changeTimestamp: step.at, reason: step.reason }));
}

/** The multiplier in force at `t`; 1 before listing. */
export function multiplierAt(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): Decimal {
  const steps = stepsOf(asset, seed);
  let low = 0;
  let high = steps.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((steps[mid] as MultiplierStep).at <= t) low = mid;
    else high = mid - 1;
  }
  return (steps[low] as MultiplierStep).value;
}
