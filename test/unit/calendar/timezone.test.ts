/** New York time arithmetic: our own DST rules checked against Intl, and the DST edges by hand. */
import { DAY_MS, addDays, newYorkDate, newYorkOffsetMs, newYorkTime } from '../../../domain/calendar';

const HOUR = 3_600_000;

const parts = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Wall clock of t in New York according to Intl (the platform's tz database). */
function intlWallClock(t: number): { date: string; time: string; offsetMs: number } {
  const p: Record<string, string> = {};
  for (const { type, value } of parts.formatToParts(t)) p[type] = value;
  const date = `${p.year}-${p.month}-${p.day}`;
  const time = `${p.hour}:${p.minute}`;
  const wallAsUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return { date, time, offsetMs: wallAsUtc - Math.floor(t / 1000) * 1000 };
}

describe('newYorkOffsetMs and newYorkDate agree with Intl', () => {
  test('every hour of 2024–2029', () => {
    const mismatches: string[] = [];
    for (let t = Date.UTC(2024, 0, 1); t < Date.UTC(2030, 0, 1); t += HOUR) {
      const intl = intlWallClock(t);
      if (newYorkOffsetMs(t) !== intl.offsetMs || newYorkDate(t) !== intl.date) mismatches.push(new Date(t).toISOString());
    }
    expect(mismatches).toEqual([]);
  });

  test('one millisecond either side of every DST change 2000–2040', () => {
    const mismatches: string[] = [];
    for (let year = 2000; year <= 2040; year++) {
      // Transitions happen at 06:00 or 07:00 UTC on a Sunday in March, April, October or November.
      for (const month of [2, 3, 9, 10]) {
        for (let day = 1; day <= 31; day++) {
          for (const hour of [6, 7]) {
            const edge = Date.UTC(year, month, day, hour);
            for (const t of [edge - 1, edge]) {
              const intl = intlWallClock(t);
              if (newYorkOffsetMs(t) !== intl.offsetMs || newYorkDate(t) !== intl.date) mismatches.push(new Date(t).toISOString());
            }
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  test('newYorkTime lands on the asked wall-clock time for every session boundary of 2025–2028', () => {
    const mismatches: string[] = [];
    for (let date = '2025-01-01'; date < '2029-01-01'; date = addDays(date, 1)) {
      for (const hhmm of ['00:00', '04:00', '09:30', '13:00', '16:00', '17:00', '20:00', '23:59']) {
        const intl = intlWallClock(newYorkTime(date, hhmm));
        if (intl.date !== date || intl.time !== hhmm) mismatches.push(`${date} ${hhmm} -> ${intl.date} ${intl.time}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe('DST edges', () => {
  test.each([
    // [date, wall clock, expected UTC instant]
    ['2025-03-09', '01:59', '2025-03-09T06:59:00.000Z'], // last EST minute
    ['2025-03-09', '02:30', '2025-03-09T07:30:00.000Z'], // skipped: read as EST, i.e. 03:30 EDT
    ['2025-03-09', '03:00', '2025-03-09T07:00:00.000Z'], // first EDT minute
    ['2025-11-02', '00:59', '2025-11-02T04:59:00.000Z'],
    ['2025-11-02', '01:30', '2025-11-02T05:30:00.000Z'], // repeated: first (EDT) occurrence
    ['2025-11-02', '02:00', '2025-11-02T07:00:00.000Z'], // EST from here
    ['2025-11-02', '24:00', '2025-11-03T05:00:00.000Z'],
    ['2026-03-08', '04:00', '2026-03-08T08:00:00.000Z'],
    ['2026-11-01', '04:00', '2026-11-01T09:00:00.000Z'],
    ['2025-07-04', '09:30', '2025-07-04T13:30:00.000Z'],
    ['2025-12-31', '20:00', '2026-01-01T01:00:00.000Z'],
  ])('newYorkTime(%s, %s) = %s', (date, hhmm, iso) => {
    expect(newYorkTime(date, hhmm)).toBe(Date.parse(iso));
  });

  test('the spring-forward jump: 01:59:59.999 EST is followed by 03:00 EDT', () => {
    const jump = Date.parse('2025-03-09T07:00:00Z');
    expect(newYorkOffsetMs(jump - 1)).toBe(-5 * HOUR);
    expect(newYorkOffsetMs(jump)).toBe(-4 * HOUR);
  });

  test('the fall-back jump: 01:59:59.999 EDT is followed by 01:00 EST', () => {
    const jump = Date.parse('2025-11-02T06:00:00Z');
    expect(newYorkOffsetMs(jump - 1)).toBe(-4 * HOUR);
    expect(newYorkOffsetMs(jump)).toBe(-5 * HOUR);
  });

  test('the DST-change days are 23 and 25 hours long', () => {
    expect(newYorkTime('2025-03-10', '00:00') - newYorkTime('2025-03-09', '00:00')).toBe(23 * HOUR);
    expect(newYorkTime('2025-11-03', '00:00') - newYorkTime('2025-11-02', '00:00')).toBe(25 * HOUR);
    expect(newYorkTime('2025-06-11', '00:00') - newYorkTime('2025-06-10', '00:00')).toBe(DAY_MS);
  });

  test('newYorkDate flips at New York midnight, not UTC midnight', () => {
    expect(newYorkDate(Date.parse('2025-03-09T04:59:59.999Z'))).toBe('2025-03-08');
    expect(newYorkDate(Date.parse('2025-03-09T05:00:00Z'))).toBe('2025-03-09');
    expect(newYorkDate(Date.parse('2025-07-01T03:59:59.999Z'))).toBe('2025-06-30');
    expect(newYorkDate(Date.parse('2025-07-01T04:00:00Z'))).toBe('2025-07-01');
  });
});

describe('calendar-date helpers', () => {
  test.each([
    ['2028-02-28', 1, '2028-02-29'],
    ['2027-02-28', 1, '2027-03-01'],
    ['2027-12-31', 1, '2028-01-01'],
    ['2025-01-01', -1, '2024-12-31'],
    ['2025-03-01', 365, '2026-03-01'],
  ])('addDays(%s, %i) = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  test.each([
    ['2025-02-30', '10:00'],
    ['2025-13-01', '10:00'],
    ['2025-1-01', '10:00'],
    ['20250101', '10:00'],
    ['2025-01-01', '25:00'],
    ['2025-01-01', '10:60'],
    ['2025-01-01', '24:01'],
    ['2025-01-01', '9:30'],
  ])('newYorkTime(%s, %s) rejects the input', (date, hhmm) => {
    expect(() => newYorkTime(date, hhmm)).toThrow(RangeError);
  });

  test('newYorkDate rejects a non-finite time', () => {
    expect(() => newYorkDate(Number.NaN)).toThrow(RangeError);
  });
});
