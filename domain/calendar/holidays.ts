/**
 * NYSE full-day holidays and 13:00 early closes, computed by the exchange's rules plus a table of
 * special (unscheduled) closures. Dates are New York calendar dates, `YYYY-MM-DD`.
 *
 * Observance: a holiday on Saturday is observed on the Friday before, on Sunday on the Monday after —
 * except New Year's Day, which is not observed at all when it falls on a Saturday (NYSE Rule 7.2).
 * Early closes: the day after Thanksgiving; Christmas Eve when it falls Monday–Thursday; July 3 when
 * it falls Monday–Thursday (so July 4 is a weekday holiday the day after). Always on trading days only.
 */

import { daysFromCivil, dayNumberOf, formatDayNumber, nthWeekdayOfMonth, lastWeekdayOfMonth, weekdayOf, civilFromDays } from './timezone';

/** A day on which the exchange is closed (or closes early), with the name the exchange gives it. */
export interface CalendarDay {
  date: string;
  name: string;
}

/** Unscheduled full-day closures announced by the exchange (national days of mourning, storms, …). */
export const SPECIAL_CLOSURES: readonly CalendarDay[] = [
  { date: '2001-09-11', name: 'September 11 attacks' },
  { date: '2001-09-12', name: 'September 11 attacks' },
  { date: '2001-09-13', name: 'September 11 attacks' },
  { date: '2001-09-14', name: 'September 11 attacks' },
  { date: '2004-06-11', name: 'National Day of Mourning for President Ronald Reagan' },
  { date: '2007-01-02', name: 'National Day of Mourning for President Gerald Ford' },
  { date: '2012-10-29', name: 'Hurricane Sandy' },
  { date: '2012-10-30', name: 'Hurricane Sandy' },
  { date: '2018-12-05', name: 'National Day of Mourning for President George H. W. Bush' },
  { date: '2025-01-09', name: 'National Day of Mourning for President Jimmy Carter' },
];

interface YearCalendar {
  holidays: Map<number, string>;
  earlyCloses: Map<number, string>;
}

const SATURDAY = 6;
const SUNDAY = 0;
const MONDAY = 1;
const THURSDAY = 4;

const specialClosuresByDay = new Map<number, string>(SPECIAL_CLOSURES.map((c) => [dayNumberOf(c.date), c.name]));
const years = new Map<number, YearCalendar>();

/** Day number of Easter Sunday (Gregorian computus, anonymous algorithm). */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return daysFromCivil(year, month, day);
}

function buildYear(year: number): YearCalendar {
  const holidays = new Map<number, string>();
  const fixed = (month: number, day: number, name: string, observeSaturday = true): void => {
    const actual = daysFromCivil(year, month, day);
    const weekday = weekdayOf(actual);
    if (weekday === SATURDAY) {
      if (observeSaturday) holidays.set(actual - 1, `${name} (observed)`);
    } else if (weekday === SUNDAY) {
      holidays.set(actual + 1, `${name} (observed)`);
    } else {
      holidays.set(actual, name);
    }
  };

  fixed(1, 1, "New Year's Day", false);
  if (year >= 1998) holidays.set(nthWeekdayOfMonth(year, 1, MONDAY, 3), 'Martin Luther King, Jr. Day');
  holidays.set(nthWeekdayOfMonth(year, 2, MONDAY, 3), "Washington's Birthday");
  holidays.set(easterSunday(year) - 2, 'Good Friday');
  holidays.set(lastWeekdayOfMonth(year, 5, MONDAY), 'Memorial Day');
  if (year >= 2022) fixed(6, 19, 'Juneteenth National Independence Day');
  fixed(7, 4, 'Independence Day');
  holidays.set(nthWeekdayOfMonth(year, 9, MONDAY, 1), 'Labor Day');
  const thanksgiving = nthWeekdayOfMonth(year, 11, THURSDAY, 4);
  holidays.set(thanksgiving, 'Thanksgiving Day');
  fixed(12, 25, 'Christmas Day');
  for (const [day, name] of specialClosuresByDay) {
    if (civilFromDays(day).year === year) holidays.set(day, name);
  }

  const earlyCloses = new Map<number, string>();
  const earlyIfTrading = (day: number, name: string): void => {
    const weekday = weekdayOf(day);
    if (weekday !== SATURDAY && weekday !== SUNDAY && !holidays.has(day)) earlyCloses.set(day, name);
  };
  const julyThird = daysFromCivil(year, 7, 3);
  if (weekdayOf(julyThird) >= MONDAY && weekdayOf(julyThird) <= THURSDAY) {
    earlyIfTrading(julyThird, 'Day before Independence Day');
  }
  earlyIfTrading(thanksgiving + 1, 'Day after Thanksgiving');
  const christmasEve = daysFromCivil(year, 12, 24);
  if (weekdayOf(christmasEve) >= MONDAY && weekdayOf(christmasEve) <= THURSDAY) earlyIfTrading(christmasEve, 'Christmas Eve');

  return { holidays, earlyCloses };
}

function yearCalendar(year: number): YearCalendar {
  let calendar = years.get(year);
  if (calendar === undefined) {
    calendar = buildYear(year);
    years.set(year, calendar);
  }
  return calendar;
}

/** Exchange holiday name on a day number, if the exchange is closed for one that day. */
export function holidayNameOfDay(dayNumber: number): string | undefined {
  return yearCalendar(civilFromDays(dayNumber).year).holidays.get(dayNumber);
}

/** Whether the exchange trades on a day number (a weekday that is not a holiday). */
export function isTradingDayNumber(dayNumber: number): boolean {
  const weekday = weekdayOf(dayNumber);
  return weekday !== SATURDAY && weekday !== SUNDAY && holidayNameOfDay(dayNumber) === undefined;
}

/** Whether the regular session closes at 13:00 on a day number. */
export function isEarlyCloseDayNumber(dayNumber: number): boolean {
  return yearCalendar(civilFromDays(dayNumber).year).earlyCloses.has(dayNumber);
}

/** Whether the exchange trades on a New York date (`YYYY-MM-DD`): a weekday that is not an exchange holiday. */
export function isTradingDay(date: string): boolean {
  return isTradingDayNumber(dayNumberOf(date));
}

/** Whether the regular session ends early (13:00) on a New York date. */
export function isEarlyClose(date: string): boolean {
  return isEarlyCloseDayNumber(dayNumberOf(date));
}

/**
 * Name of the exchange holiday that closes the market on a New York date, e.g. "Good Friday" or
 * "Independence Day (observed)"; undefined on trading days and ordinary weekends.
 */
export function holidayName(date: string): string | undefined {
  return holidayNameOfDay(dayNumberOf(date));
}

/** All full-day exchange closures (other than weekends) in a calendar year, in date order. */
export function holidaysInYear(year: number): CalendarDay[] {
  return sortedDays(yearCalendar(year).holidays);
}

/** All 13:00 early-close days in a calendar year, in date order. */
export function earlyClosesInYear(year: number): CalendarDay[] {
  return sortedDays(yearCalendar(year).earlyCloses);
}

function sortedDays(days: Map<number, string>): CalendarDay[] {
  return [...days]
    .sort(([a], [b]) => a - b)
    .map(([day, name]) => ({ date: formatDayNumber(day), name }));
}
