/**
 * Builds regular dividend calendars (quarterly, monthly) for the catalogue from a first ex-date and
 * a cadence, so the data reads as the issuer's declared policy rather than a page of dates.
 */
import { isTradingDay } from '../calendar';
import { type Dividend } from './types';

const DAY_MS = 86_400_000;

function toDayNumber(date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(ms)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  return ms / DAY_MS;
}

function fromDayNumber(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The first NYSE trading day on or after `day` (weekends and exchange holidays move forward). */
function nextTradingDay(day: number): number {
  let candidate = day;
  while (!isTradingDay(fromDayNumber(candidate))) candidate++;
  return candidate;
}

/** `date` plus `months` calendar months, clamped to the last day of the target month. */
function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const monthIndex = m - 1 + months;
  const year = y + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return fromDayNumber(Date.UTC(year, month, Math.min(d, lastDay)) / DAY_MS);
}

export interface DividendPolicy {
  /** Nominal first ex-date; every later one is this date plus a multiple of `everyMonths`. */
  firstExDate: string;
  everyMonths: number;
  /** Last possible ex-date (inclusive). */
  until: string;
  /** Calendar days from ex-date to payment. */
  paymentLagDays: number;
  /** Cash per share by calendar year of the ex-date; a year without an entry keeps the previous amount. */
  amountByYear: Readonly<Record<number, string>>;
}

/** The dividends a regular policy produces; ex- and payment dates that fall on a non-trading day move to the next trading day. */
export function regularDividends(policy: DividendPolicy): Dividend[] {
  const dividends: Dividend[] = [];
  const until = toDayNumber(policy.until);
  const years = Object.keys(policy.amountByYear).map(Number).sort((a, b) => a - b);
  for (let n = 0; ; n++) {
    const exDay = nextTradingDay(toDayNumber(addMonths(policy.firstExDate, n * policy.everyMonths)));
    if (exDay > until) break;
    const exDate = fromDayNumber(exDay);
    const year = Number(exDate.slice(0, 4));
    const amountYear = years.filter((y) => y <= year).pop();
    if (amountYear === undefined) throw new RangeError(`no dividend amount for ${exDate}`);
    dividends.push({
      exDate,
      paymentDate: fromDayNumber(nextTradingDay(exDay + policy.paymentLagDays)),
      cashAmount: policy.amountByYear[amountYear] as string,
    });
  }
  return dividends;
}
