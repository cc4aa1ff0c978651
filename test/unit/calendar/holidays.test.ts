/**
 * NYSE holidays and early closes, checked against the exchange's published calendars
 * (NYSE Group announcements of Nov 2024 for 2025–2027 and Dec 2025 for 2026–2028).
 */
import { addDays, earlyClosesInYear, holidayName, holidaysInYear, isEarlyClose, isTradingDay } from '../../../domain/calendar';

/** Full-day closures as published by NYSE, including the special closure of 2025-01-09. */
const PUBLISHED_HOLIDAYS: Record<number, string[]> = {
  2025: ['2025-01-01', '2025-01-09', '2025-01-20', '2025-02-17', '2025-04-18', '2025-05-26', '2025-06-19', '2025-07-04', '2025-09-01', '2025-11-27', '2025-12-25'],
  2026: ['2026-01-01', '2026-01-19', '2026-02-16', '2026-04-03', '2026-05-25', '2026-06-19', '2026-07-03', '2026-09-07', '2026-11-26', '2026-12-25'],
  2027: ['2027-01-01', '2027-01-18', '2027-02-15', '2027-03-26', '2027-05-31', '2027-06-18', '2027-07-05', '2027-09-06', '2027-11-25', '2027-12-24'],
  // New Year's Day 2028 falls on a Saturday: no holiday is observed.
  2028: ['2028-01-17', '2028-02-21', '2028-04-14', '2028-05-29', '2028-06-19', '2028-07-04', '2028-09-04', '2028-11-23', '2028-12-25'],
};

/** 13:00 early closes as published by NYSE. */
const PUBLISHED_EARLY_CLOSES: Record<number, string[]> = {
  2025: ['2025-07-03', '2025-11-28', '2025-12-24'],
  2026: ['2026-11-27', '2026-12-24'],
  2027: ['2027-11-26'],
  2028: ['2028-07-03', '2028-11-24'],
};

const YEARS = [2025, 2026, 2027, 2028];
const allHolidays = YEARS.flatMap((y) => PUBLISHED_HOLIDAYS[y] ?? []);
const allEarlyCloses = YEARS.flatMap((y) => PUBLISHED_EARLY_CLOSES[y] ?? []);

describe('the published NYSE calendar 2025–2028', () => {
  test.each(YEARS)('holidaysInYear(%i) lists exactly the published closures', (year) => {
    expect(holidaysInYear(year).map((d) => d.date)).toEqual(PUBLISHED_HOLIDAYS[year]);
  });

  test.each(YEARS)('earlyClosesInYear(%i) lists exactly the published early closes', (year) => {
    expect(earlyClosesInYear(year).map((d) => d.date)).toEqual(PUBLISHED_EARLY_CLOSES[year]);
  });

  test.each(allHolidays)('%s is a named holiday, not a trading day', (date) => {
    expect(isTradingDay(date)).toBe(false);
    expect(holidayName(date)).toEqual(expect.any(String));
    expect(isEarlyClose(date)).toBe(false);
  });

  test.each(allEarlyCloses)('%s is an early-close trading day', (date) => {
    expect(isTradingDay(date)).toBe(true);
    expect(isEarlyClose(date)).toBe(true);
    expect(holidayName(date)).toBeUndefined();
  });

  test('every other weekday of 2025–2028 is an ordinary full trading day, every weekend day is closed', () => {
    const holidays = new Set(allHolidays);
    const earlyCloses = new Set(allEarlyCloses);
    const wrong: string[] = [];
    for (let date = '2025-01-01'; date < '2029-01-01'; date = addDays(date, 1)) {
      const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
      const weekend = weekday === 0 || weekday === 6;
      const expectTrading = !weekend && !holidays.has(date);
      if (isTradingDay(date) !== expectTrading) wrong.push(`${date} trading`);
      if (isEarlyClose(date) !== earlyCloses.has(date)) wrong.push(`${date} early close`);
      if (weekend && holidayName(date) !== undefined) wrong.push(`${date} weekend named`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('holiday names and observance', () => {
  test.each([
    ['2025-01-01', "New Year's Day"],
    ['2025-01-09', 'National Day of Mourning for President Jimmy Carter'],
    ['2025-01-20', 'Martin Luther King, Jr. Day'],
    ['2025-02-17', "Washington's Birthday"],
    ['2025-04-18', 'Good Friday'],
    ['2025-05-26', 'Memorial Day'],
    ['2025-06-19', 'Juneteenth National Independence Day'],
    ['2025-07-04', 'Independence Day'],
    ['2025-09-01', 'Labor Day'],
    ['2025-11-27', 'Thanksgiving Day'],
    ['2025-12-25', 'Christmas Day'],
    ['2026-07-03', 'Independence Day (observed)'],
    ['2027-06-18', 'Juneteenth National Independence Day (observed)'],
    ['2027-07-05', 'Independence Day (observed)'],
    ['2027-12-24', 'Christmas Day (observed)'],
    ['2022-12-26', 'Christmas Day (observed)'],
    ['2023-01-02', "New Year's Day (observed)"],
  ])('holidayName(%s) = %s', (date, name) => {
    expect(holidayName(date)).toBe(name);
  });

  test.each([
    ['2027-12-31', 'Friday before a Saturday New Year: NYSE does not observe it'],
    ['2021-12-31', 'Friday before a Saturday New Year: NYSE does not observe it'],
    ['2026-07-02', 'Thursday before the observed Independence Day: a full day'],
    ['2027-07-02', 'Friday before a Sunday Independence Day: a full day'],
    ['2027-12-23', 'Thursday before the observed Christmas: a full day'],
    ['2028-12-22', 'Friday before a Monday Christmas: a full day'],
    ['2028-06-16', 'Friday before a Monday Juneteenth: a full day'],
    ['2021-06-18', 'Juneteenth was first observed by NYSE in 2022'],
  ])('%s is a full trading day (%s)', (date) => {
    expect(isTradingDay(date)).toBe(true);
    expect(isEarlyClose(date)).toBe(false);
    expect(holidayName(date)).toBeUndefined();
  });

  test.each(['2008-03-21', '2016-03-25', '2019-04-19', '2022-04-15', '2024-03-29', '2030-04-19', '2038-04-23'])(
    'Good Friday from the Easter computus: %s',
    (date) => {
      expect(holidayName(date)).toBe('Good Friday');
    },
  );

  test.each([
    ['2018-12-05', 'Bush'],
    ['2012-10-29', 'Sandy'],
    ['2012-10-30', 'Sandy'],
  ])('special closure %s (%s) is not a trading day', (date, fragment) => {
    expect(isTradingDay(date)).toBe(false);
    expect(holidayName(date)).toContain(fragment);
  });

  test('past early closes follow the same rules', () => {
    expect(['2024-07-03', '2024-11-29', '2024-12-24', '2023-07-03', '2019-12-24'].filter((d) => !isEarlyClose(d))).toEqual([]);
    // Christmas Eve 2021 was the observed Christmas holiday; July 3 2020 the observed Independence Day.
    expect(isEarlyClose('2021-12-24')).toBe(false);
    expect(isEarlyClose('2020-07-03')).toBe(false);
  });

  test('a weekend day is closed but is no holiday', () => {
    expect(isTradingDay('2025-06-14')).toBe(false);
    expect(isTradingDay('2025-06-15')).toBe(false);
    expect(holidayName('2025-06-14')).toBeUndefined();
    expect(isEarlyClose('2025-06-14')).toBe(false);
  });

  test.each(['2025-02-29', '2025-00-10', 'tomorrow', '2025/01/02', ''])('rejects the date %p', (date) => {
    expect(() => isTradingDay(date)).toThrow(RangeError);
    expect(() => isEarlyClose(date)).toThrow(RangeError);
    expect(() => holidayName(date)).toThrow(RangeError);
  });
});
