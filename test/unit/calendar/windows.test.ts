/** Market-hours-aware windows: open time in a range, and where a window of open time starts. */
import {
  OPEN_WINDOW_MAX_LOOKBACK_MS,
  type Session,
  openTimeBetween,
  openWindowStart,
  sessionAt,
} from '../../../domain/calendar';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (iso: string): number => Date.parse(iso);

const regularOnly = (s: Session): boolean => s === 'regular';
const extendedHours = (s: Session): boolean => s !== 'offhours';
const marketHours = (s: Session): boolean => s === 'premarket' || s === 'regular' || s === 'postmarket';
const always = (): boolean => true;
const never = (): boolean => false;

describe('openWindowStart', () => {
  test('is now - duration when every session counts', () => {
    const now = at('2025-06-14T12:00-04:00'); // a Saturday
    expect(openWindowStart(now, DAY, always)).toBe(now - DAY);
  });

  test('is now for a zero or negative duration', () => {
    const now = at('2025-06-14T12:00-04:00');
    expect(openWindowStart(now, 0, regularOnly)).toBe(now);
    expect(openWindowStart(now, -HOUR, regularOnly)).toBe(now);
  });

  test('over a weekend, 24 h of regular sessions reaches back to the Tuesday before', () => {
    // Monday 1 h + Friday, Thursday, Wednesday 6.5 h each = 20.5 h; 3.5 h more ends Tuesday at 16:00.
    expect(openWindowStart(at('2025-06-09T10:30-04:00'), DAY, regularOnly)).toBe(at('2025-06-03T12:30-04:00'));
  });

  test('over a weekend, 24 h of extended hours skips exactly the Friday 20:00 → Sunday 20:00 gap', () => {
    expect(openWindowStart(at('2025-06-09T01:00-04:00'), DAY, extendedHours)).toBe(at('2025-06-06T01:00-04:00'));
  });

  test('over a holiday weekend (Memorial Day 2025) the holiday counts as closed', () => {
    // Tuesday: overnight from Monday 20:00 and premarket to 06:00 = 10 h; the other 14 h end Friday 20:00.
    expect(openWindowStart(at('2025-05-27T06:00-04:00'), DAY, extendedHours)).toBe(at('2025-05-23T06:00-04:00'));
  });

  test('over Thanksgiving, the early close contributes only 3.5 h of regular time', () => {
    // Friday 09:30–13:00 (3.5 h) + Wednesday 6.5 h = 10 h: the window starts at Wednesday's open.
    expect(openWindowStart(at('2025-12-01T09:30-05:00'), 10 * HOUR, regularOnly)).toBe(at('2025-11-26T09:30-05:00'));
    expect(openWindowStart(at('2025-12-01T09:30-05:00'), 10 * HOUR + 1, regularOnly)).toBe(at('2025-11-25T15:59:59.999-05:00'));
  });

  test('market hours (no overnight) across the night before a holiday', () => {
    // Monday 2025-07-07 05:00: 1 h of premarket; July 4 closed; Thursday July 3 runs 04:00–17:00 = 13 h;
    // the last 10 h come from Wednesday, 10:00–20:00.
    expect(openWindowStart(at('2025-07-07T05:00-04:00'), DAY, marketHours)).toBe(at('2025-07-02T10:00-04:00'));
  });

  test('the window always holds exactly the requested open time and starts inside open time', () => {
    const problems: string[] = [];
    const filters: [string, (s: Session) => boolean][] = [['regular', regularOnly], ['extended', extendedHours], ['market', marketHours]];
    for (let now = at('2025-01-01T00:00:00Z'); now < at('2029-01-01T00:00:00Z'); now += 7 * HOUR + 13 * 60_000) {
      for (const [name, isOpen] of filters) {
        const start = openWindowStart(now, DAY, isOpen);
        if (openTimeBetween(start, now, isOpen) !== DAY) problems.push(`${name} amount @${new Date(now).toISOString()}`);
        if (!isOpen(sessionAt(start))) problems.push(`${name} start @${new Date(now).toISOString()}`);
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  test('gives up at the lookback limit when nothing is ever open', () => {
    const now = at('2025-06-11T12:00-04:00');
    expect(openWindowStart(now, DAY, never)).toBe(now - DAY - OPEN_WINDOW_MAX_LOOKBACK_MS);
  });

  test('rejects non-finite arguments', () => {
    expect(() => openWindowStart(Number.NaN, DAY, always)).toThrow(RangeError);
    expect(() => openWindowStart(0, Number.POSITIVE_INFINITY, always)).toThrow(RangeError);
  });
});

describe('openTimeBetween', () => {
  test('a plain week has 5 × 6.5 h of regular time and 2 days of offhours', () => {
    const from = at('2025-06-09T00:00-04:00');
    const to = at('2025-06-16T00:00-04:00');
    expect(openTimeBetween(from, to, regularOnly)).toBe(5 * 6.5 * HOUR);
    expect(openTimeBetween(from, to, (s) => s === 'offhours')).toBe(2 * DAY);
    expect(openTimeBetween(from, to, always)).toBe(to - from);
  });

  test('Thanksgiving week: three full days and one early close', () => {
    const from = at('2025-11-24T00:00-05:00');
    const to = at('2025-11-29T00:00-05:00');
    expect(openTimeBetween(from, to, regularOnly)).toBe((3 * 6.5 + 3.5) * HOUR);
    expect(openTimeBetween(from, to, (s) => s === 'postmarket')).toBe(4 * 4 * HOUR);
  });

  test('clips partial sessions at both ends', () => {
    expect(openTimeBetween(at('2025-06-11T15:00-04:00'), at('2025-06-12T10:00-04:00'), regularOnly)).toBe(1.5 * HOUR);
  });

  test('the DST weekend is an hour shorter in real time', () => {
    const from = at('2025-03-07T20:00-05:00');
    const to = at('2025-03-10T09:30-04:00');
    expect(openTimeBetween(from, to, (s) => s === 'offhours')).toBe(47 * HOUR);
    expect(openTimeBetween(from, to, extendedHours)).toBe(8 * HOUR + 5.5 * HOUR);
  });

  test('is 0 for an empty or inverted range', () => {
    const t = at('2025-06-11T12:00-04:00');
    expect(openTimeBetween(t, t, always)).toBe(0);
    expect(openTimeBetween(t, t - HOUR, always)).toBe(0);
  });
});
