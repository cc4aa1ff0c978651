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
const extendedHours = (s: Session): boolean => s !== 'offhours' && s !== 'paused';
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
    // Monday 09:31–10:30 (59 min) + Friday, Thursday, Wednesday 09:31–15:59 each = 20 h 23 min; 3 h 37 min more end Tuesday at 15:59.
    expect(openWindowStart(at('2025-06-09T10:30-04:00'), DAY, regularOnly)).toBe(at('2025-06-03T12:22-04:00'));
  });

  test('over a weekend, 24 h of extended hours skips the Friday 19:59 → Sunday 20:05 gap and the pauses', () => {
    expect(openWindowStart(at('2025-06-09T01:00-04:00'), DAY, extendedHours)).toBe(at('2025-06-06T00:44-04:00'));
  });

  test('over a holiday weekend (Memorial Day 2025) the holiday counts as closed', () => {
    // Tuesday: overnight from Monday 20:05 (7 h 50) and premarket from 04:01 to 06:00; the rest ends Friday 19:59.
    expect(openWindowStart(at('2025-05-27T06:00-04:00'), DAY, extendedHours)).toBe(at('2025-05-23T05:44-04:00'));
  });

  test('over Thanksgiving, the early close contributes only 3 h 28 min of regular time', () => {
    // Friday 09:31–12:59 (3 h 28) + Wednesday 09:31–15:59 (6 h 28) = 9 h 56: the window starts at Wednesday's open.
    expect(openWindowStart(at('2025-12-01T09:30-05:00'), 9 * HOUR + 56 * 60_000, regularOnly)).toBe(at('2025-11-26T09:31-05:00'));
    expect(openWindowStart(at('2025-12-01T09:30-05:00'), 9 * HOUR + 56 * 60_000 + 1, regularOnly)).toBe(at('2025-11-25T15:58:59.999-05:00'));
  });

  test('market hours (no overnight) across the night before a holiday', () => {
    // Monday 2025-07-07 05:00: 59 min of premarket; July 4 closed; Thursday July 3 runs 04:01–16:59 less two pauses = 12 h 54;
    // the last 10 h 07 come from Wednesday, 09:50–19:59 less the 15:59–16:01 pause.
    expect(openWindowStart(at('2025-07-07T05:00-04:00'), DAY, marketHours)).toBe(at('2025-07-02T09:50-04:00'));
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
  test('a plain week has 5 × 6 h 28 of regular time and 2 days less 10 min of offhours', () => {
    const from = at('2025-06-09T00:00-04:00');
    const to = at('2025-06-16T00:00-04:00');
    expect(openTimeBetween(from, to, regularOnly)).toBe(5 * (6 * HOUR + 28 * 60_000));
    expect(openTimeBetween(from, to, (s) => s === 'offhours')).toBe(2 * DAY - 10 * 60_000);
    expect(openTimeBetween(from, to, always)).toBe(to - from);
  });

  test('Thanksgiving week: three full days and one early close', () => {
    const from = at('2025-11-24T00:00-05:00');
    const to = at('2025-11-29T00:00-05:00');
    expect(openTimeBetween(from, to, regularOnly)).toBe(3 * (6 * HOUR + 28 * 60_000) + 3 * HOUR + 28 * 60_000);
    expect(openTimeBetween(from, to, (s) => s === 'postmarket')).toBe(4 * (3 * HOUR + 58 * 60_000));
  });

  test('clips partial sessions at both ends', () => {
    expect(openTimeBetween(at('2025-06-11T15:00-04:00'), at('2025-06-12T10:00-04:00'), regularOnly)).toBe(88 * 60_000);
  });

  test('the DST weekend is an hour shorter in real time', () => {
    const from = at('2025-03-07T20:00-05:00');
    const to = at('2025-03-10T09:30-04:00');
    expect(openTimeBetween(from, to, (s) => s === 'offhours')).toBe(47 * HOUR - 10 * 60_000);
    expect(openTimeBetween(from, to, extendedHours)).toBe(7 * HOUR + 50 * 60_000 + 5 * HOUR + 28 * 60_000);
  });

  test('is 0 for an empty or inverted range', () => {
    const t = at('2025-06-11T12:00-04:00');
    expect(openTimeBetween(t, t, always)).toBe(0);
    expect(openTimeBetween(t, t - HOUR, always)).toBe(0);
  });
});
