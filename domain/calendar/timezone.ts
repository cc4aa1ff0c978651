/**
 * America/New_York wall-clock arithmetic without Intl: civil-date/day-number conversions and the
 * US daylight-saving rules, fast enough for per-tick use.
 *
 * Day numbers count days since 1970-01-01 (a Thursday). DST rules: since 2007 EDT runs from the
 * second Sunday of March 02:00 EST to the first Sunday of November 02:00 EDT; for 1987–2006 (and,
 * as an approximation, earlier years) from the first Sunday of April to the last Sunday of October.
 */

/** Milliseconds in a civil day. */
export const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const EST_OFFSET_MS = -5 * HOUR_MS;
const EDT_OFFSET_MS = -4 * HOUR_MS;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN = /^(\d{2}):(\d{2})$/;

/** Day number (days since 1970-01-01) of a proleptic Gregorian date; month is 1–12. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Civil date of a day number. */
export function civilFromDays(dayNumber: number): { year: number; month: number; day: number } {
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Day of the week of a day number: 0 = Sunday … 6 = Saturday. */
export function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

/** Day number of the n-th (1-based) given weekday of a month. */
export function nthWeekdayOfMonth(year: number, month: number, weekday: number, n: number): number {
  const first = daysFromCivil(year, month, 1);
  return first + ((weekday - weekdayOf(first) + 7) % 7) + (n - 1) * 7;
}

/** Day number of the last given weekday of a month. */
export function lastWeekdayOfMonth(year: number, month: number, weekday: number): number {
  const last = month === 12 ? daysFromCivil(year + 1, 1, 1) - 1 : daysFromCivil(year, month + 1, 1) - 1;
  return last - ((weekdayOf(last) - weekday + 7) % 7);
}

/** Parses a `YYYY-MM-DD` calendar date into its day number; throws RangeError on anything else. */
export function dayNumberOf(date: string): number {
  const match = DATE_PATTERN.exec(date);
  if (match === null) throw new RangeError(`Invalid date "${date}": expected YYYY-MM-DD`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const dayNumber = daysFromCivil(year, month, day);
  const back = civilFromDays(dayNumber);
  if (month < 1 || month > 12 || back.month !== month || back.day !== day) {
    throw new RangeError(`Invalid date "${date}": no such calendar day`);
  }
  return dayNumber;
}

/** Formats a day number as `YYYY-MM-DD`. */
export function formatDayNumber(dayNumber: number): string {
  const { year, month, day } = civilFromDays(dayNumber);
  return `${String(year).padStart(4, '0')}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/** The calendar date `days` days after (or before, if negative) a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  return formatDayNumber(dayNumberOf(date) + days);
}

function utcYearOf(t: number): number {
  const z = Math.floor(t / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  return yearOfEra + era * 400 + (dayOfYear >= 306 ? 1 : 0);
}

/** The UTC instants at which New York daylight saving time starts and ends in a year: EDT is [start, end). */
export function dstTransitions(year: number): { start: number; end: number } {
  if (year >= 2007) {
    return {
      start: nthWeekdayOfMonth(year, 3, 0, 2) * DAY_MS + 7 * HOUR_MS, // 02:00 EST
      end: nthWeekdayOfMonth(year, 11, 0, 1) * DAY_MS + 6 * HOUR_MS, // 02:00 EDT
    };
  }
  return {
    start: nthWeekdayOfMonth(year, 4, 0, 1) * DAY_MS + 7 * HOUR_MS,
    end: lastWeekdayOfMonth(year, 10, 0) * DAY_MS + 6 * HOUR_MS,
  };
}

let cachedYear = Number.NaN;
let cachedYearStart = 0;
let cachedYearEnd = 0;
let cachedDstStart = 0;
let cachedDstEnd = 0;

/** New York's UTC offset in milliseconds at instant `t` (-4 h in EDT, -5 h in EST). */
export function newYorkOffsetMs(t: number): number {
  if (!(t >= cachedYearStart && t < cachedYearEnd)) {
    const year = utcYearOf(t);
    if (year !== cachedYear) {
      const transitions = dstTransitions(year);
      cachedYear = year;
      cachedYearStart = daysFromCivil(year, 1, 1) * DAY_MS;
      cachedYearEnd = daysFromCivil(year + 1, 1, 1) * DAY_MS;
      cachedDstStart = transitions.start;
      cachedDstEnd = transitions.end;
    }
  }
  return t >= cachedDstStart && t < cachedDstEnd ? EDT_OFFSET_MS : EST_OFFSET_MS;
}

/** Day number of the New York calendar day containing instant `t`. */
export function newYorkDayNumber(t: number): number {
  return Math.floor((t + newYorkOffsetMs(t)) / DAY_MS);
}

/** `YYYY-MM-DD` of instant `t` (epoch ms) in New York. */
export function newYorkDate(t: number): string {
  assertFiniteTime(t);
  return formatDayNumber(newYorkDayNumber(t));
}

/**
 * Epoch ms of a New York wall-clock time given as "local ms" (day number × DAY_MS + time of day).
 * A time skipped by the spring-forward jump is read with the offset before the jump (02:30 → 03:30
 * EDT); a time repeated by the fall-back jump resolves to its first (EDT) occurrence.
 */
export function newYorkLocalToUtc(localMs: number): number {
  const asDaylight = localMs - EDT_OFFSET_MS;
  return newYorkOffsetMs(asDaylight) === EDT_OFFSET_MS ? asDaylight : localMs - EST_OFFSET_MS;
}

/**
 * Epoch ms of the New York wall-clock time `hhmm` ("HH:MM", 00:00–24:00) on `date` (YYYY-MM-DD).
 * Skipped and repeated times around DST changes resolve as in {@link newYorkLocalToUtc}.
 */
export function newYorkTime(date: string, hhmm: string): number {
  const dayNumber = dayNumberOf(date);
  const match = TIME_PATTERN.exec(hhmm);
  const hours = Number(match?.[1]);
  const minutes = Number(match?.[2]);
  if (match === null || minutes > 59 || hours > 24 || (hours === 24 && minutes !== 0)) {
    throw new RangeError(`Invalid time "${hhmm}": expected HH:MM between 00:00 and 24:00`);
  }
  return newYorkLocalToUtc(dayNumber * DAY_MS + hours * HOUR_MS + minutes * MINUTE_MS);
}

/** Throws RangeError unless `t` is a finite number of epoch milliseconds. */
export function assertFiniteTime(t: number, name = 'time'): void {
  if (!Number.isFinite(t)) throw new RangeError(`Invalid ${name}: ${String(t)} is not a finite epoch-ms value`);
}
