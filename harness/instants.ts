/**
 * Instants in the sessions a run of the product is tried in, the next ones ahead of now: a Saturday, an exchange
 * holiday, the minute before an early close. Ahead, not behind: processes moved there with harness/shifted-clock.mjs
 * keep the real clock's chains and PostgreSQL behind them, as a quote's expiry is ahead of the block that executes it.
 */
import { addDays, holidayName, isEarlyClose, newYorkDate, newYorkTime } from '../domain/calendar';

export type SessionCase = 'saturday' | 'holiday' | 'early-close';

/** What each case is, and where in its day it starts (New York time). */
const CASES: Record<SessionCase, { is(date: string): boolean; at: string; says: string }> = {
  saturday: { is: (date) => new Date(`${date}T12:00:00Z`).getUTCDay() === 6, at: '12:00', says: 'noon on a Saturday' },
  holiday: { is: (date) => holidayName(date) !== undefined, at: '12:00', says: 'noon on an exchange holiday' },
  'early-close': { is: isEarlyClose, at: '12:58', says: 'a minute before the 12:59 close of an early-close day (then its pause, postmarket at 13:01)' },
};

/** The calendar looks this far ahead for each case (early closes: at least once a year). */
const HORIZON_DAYS = 400;

export interface ChosenInstant {
  case: SessionCase;
  /** Epoch ms. */
  at: number;
  /** What it is, with its date: `noon on a Saturday (2026-11-28)`. */
  description: string;
}

/** The first instant of `kind` at least `marginMs` after `now`. */
export function nextInstant(kind: SessionCase, now: number = Date.now(), marginMs = 60 * 60_000): ChosenInstant {
  const wanted = CASES[kind];
  let date = newYorkDate(now);
  for (let day = 0; day <= HORIZON_DAYS; day += 1, date = addDays(date, 1)) {
    const at = newYorkTime(date, wanted.at);
    if (wanted.is(date) && at >= now + marginMs) return { case: kind, at, description: `${wanted.says} (${date})` };
  }
  throw new Error(`the calendar has no ${kind} day within ${HORIZON_DAYS} days of ${new Date(now).toISOString()}`);
}
