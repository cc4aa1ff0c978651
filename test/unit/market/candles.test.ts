import { findAsset } from '../../../domain/catalogue';
import {
  INTERVALS,
  RANGES,
  VALID_PAIRS,
  aggregate,
  bucketEnd,
  bucketStart,
  intervalMs,
  isValidPair,
  rangeStart,
  type Interval,
  type Sample,
} from '../../../domain/market/candles';
import { Decimal } from '../../../domain/money';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const iso = (s: string): number => Date.parse(s);

function asset(symbol: string) {
  const found = findAsset(symbol);
  if (found === undefined) throw new Error(`${symbol} missing from the catalogue`);
  return found;
}

describe('intervals, ranges and pairs', () => {
  test('are the spec enumerations', () => {
    expect(INTERVALS).toEqual(['1min', '5min', '15min', '1hour', '4hour', '12hour', '1day']);
    expect(RANGES).toEqual(['1day', '1month', '3month', '6month', '1year', 'all']);
    expect(VALID_PAIRS.map((p) => `${p.interval}/${p.range}`)).toEqual([
      '1min/1day', '5min/1day', '15min/1day', '1hour/1month', '4hour/1month',
      '12hour/3month', '1day/3month', '1day/6month', '1day/1year', '1day/all',
    ]);
  });

  test.each<[Interval, string, boolean]>([
    ['1min', '1day', true],
    ['1min', '1month', false],
    ['1day', '1day', false],
    ['12hour', '3month', true],
  ])('%s/%s valid: %s', (interval, range, valid) => {
    expect(isValidPair(interval, range as (typeof RANGES)[number])).toBe(valid);
  });

  test('interval lengths', () => {
    expect(INTERVALS.map(intervalMs)).toEqual([60_000, 300_000, 900_000, HOUR_MS, 4 * HOUR_MS, 12 * HOUR_MS, DAY_MS]);
  });
});

describe('bucketStart', () => {
  const t = iso('2026-11-20T14:37:12.345Z');
  test.each<[Interval, string]>([
    ['1min', '2026-11-20T14:37:00.000Z'],
    ['5min', '2026-11-20T14:35:00.000Z'],
    ['15min', '2026-11-20T14:30:00.000Z'],
    ['1hour', '2026-11-20T14:00:00.000Z'],
    ['4hour', '2026-11-20T12:00:00.000Z'],
    ['12hour', '2026-11-20T12:00:00.000Z'],
    ['1day', '2026-11-20T05:00:00.000Z'], // New York midnight in winter (EST)
  ])('%s buckets are UTC aligned (1day: New York midnight)', (interval, expected) => {
    expect(new Date(bucketStart(t, interval)).toISOString()).toBe(expected);
  });

  test.each([
    ['summer: just after New York midnight', '2026-07-01T04:00:00.000Z', '2026-07-01T04:00:00.000Z'],
    ['summer: just before New York midnight', '2026-07-01T03:59:59.999Z', '2026-06-30T04:00:00.000Z'],
    ['UTC midnight is still the previous New York day', '2026-11-21T00:30:00.000Z', '2026-11-20T05:00:00.000Z'],
  ])('1day %s', (_name, at, expected) => {
    expect(new Date(bucketStart(iso(at), '1day')).toISOString()).toBe(expected);
  });

  test.each([
    ['spring forward day is 23 h', '2026-03-08T12:00:00Z', '2026-03-08T05:00:00.000Z', 23],
    ['fall back day is 25 h', '2026-11-01T12:00:00Z', '2026-11-01T04:00:00.000Z', 25],
    ['ordinary day is 24 h', '2026-11-02T12:00:00Z', '2026-11-02T05:00:00.000Z', 24],
  ])('1day bucket across DST: %s', (_name, at, start, hours) => {
    const begin = bucketStart(iso(at), '1day');
    expect(new Date(begin).toISOString()).toBe(start);
    expect(bucketEnd(begin, '1day') - begin).toBe(hours * HOUR_MS);
    expect(bucketStart(bucketEnd(begin, '1day') - 1, '1day')).toBe(begin);
  });

  test('intraday bucket end is start plus the interval', () => {
    expect(bucketEnd(iso('2026-11-20T12:00:00Z'), '4hour')).toBe(iso('2026-11-20T16:00:00Z'));
  });
});

describe('rangeStart', () => {
  // Sunday 2026-11-15 12:00 New York: the US market has been closed since Friday 20:00.
  const sunday = iso('2026-11-15T17:00:00Z');

  test('1day for an off-hours-tradable asset is a plain rolling 24 h', () => {
    expect(rangeStart(sunday, '1day', asset('SPYon'))).toBe(sunday - DAY_MS);
  });

  test('1day for an overnight asset reaches back over the weekend to 24 h of open time', () => {
    // Friday 04:01–19:59 less its pauses (15 h 54), the overnight from Thursday 20:05 (7 h 50), 16 min of Thursday's postmarket.
    expect(new Date(rangeStart(sunday, '1day', asset('AAPLon'))).toISOString()).toBe('2026-11-13T00:43:00.000Z');
  });

  test('1day for an asset without overnight skips overnight sessions too', () => {
    // Friday 04:01–19:59 less its pauses (15 h 54), Thursday 16:01–19:59 (3 h 58) and 11:51–15:59 (4 h 08).
    expect(new Date(rangeStart(sunday, '1day', asset('KOon'))).toISOString()).toBe('2026-11-12T16:51:00.000Z');
  });

  test('1day on a weekday afternoon is 24 h of open time for an overnight asset: its four transition pauses (16 min) do not count', () => {
    const wednesday = iso('2026-11-18T19:00:00Z');
    expect(rangeStart(wednesday, '1day', asset('AAPLon'))).toBe(wednesday - DAY_MS - 16 * 60_000);
  });

  test.each([
    ['1month', 30],
    ['3month', 90],
    ['6month', 180],
    ['1year', 365],
  ] as const)('%s is %i days', (range, days) => {
    expect(rangeStart(sunday, range, asset('AAPLon'))).toBe(sunday - days * DAY_MS);
  });

  test('all starts at listing, and no range starts before it', () => {
    const mag7 = asset('MAG7on');
    const listing = iso('2025-10-15T04:00:00Z');
    expect(rangeStart(sunday, 'all', mag7)).toBe(listing);
    expect(rangeStart(iso('2025-11-01T12:00:00Z'), '1year', mag7)).toBe(listing);
    expect(rangeStart(sunday, 'all', { ...mag7, listedAt: listing + 1 })).toBe(listing + 1);
  });
});

describe('aggregate', () => {
  const s = (at: string, price: string, volume = '1'): Sample => ({ t: iso(at), price: new Decimal(price), volume: new Decimal(volume) });
  const view = (interval: Interval, samples: Sample[]) =>
    aggregate(samples, interval).map((c) => ({
      at: new Date(c.bucketStart).toISOString(),
      ohlc: [c.open, c.high, c.low, c.close].map((d) => d.toFixed()).join(' '),
      volume: c.volume.toFixed(),
    }));

  test('open is first, close last, high/low extremes, volume summed, empty buckets skipped', () => {
    const samples = [
      s('2026-11-20T14:00:05Z', '10', '2'),
      s('2026-11-20T14:00:20Z', '12.5', '3'),
      s('2026-11-20T14:00:40Z', '9.75', '0.5'),
      s('2026-11-20T14:00:59.999Z', '11'),
      s('2026-11-20T14:03:00Z', '11.1', '0'),
    ];
    expect(view('1min', samples)).toEqual([
      { at: '2026-11-20T14:00:00.000Z', ohlc: '10 12.5 9.75 11', volume: '6.5' },
      { at: '2026-11-20T14:03:00.000Z', ohlc: '11.1 11.1 11.1 11.1', volume: '0' },
    ]);
    expect(view('5min', samples)).toEqual([{ at: '2026-11-20T14:00:00.000Z', ohlc: '10 12.5 9.75 11.1', volume: '6.5' }]);
  });

  test('sorts samples that arrive out of order', () => {
    expect(view('1hour', [s('2026-11-20T14:30:00Z', '2'), s('2026-11-20T14:10:00Z', '1'), s('2026-11-20T13:59:00Z', '5')])).toEqual([
      { at: '2026-11-20T13:00:00.000Z', ohlc: '5 5 5 5', volume: '1' },
      { at: '2026-11-20T14:00:00.000Z', ohlc: '1 2 1 2', volume: '2' },
    ]);
  });

  test('1day candles follow New York days across the fall-back change', () => {
    const candles = view('1day', [
      s('2026-11-01T03:59:00Z', '1'), // Oct 31, 23:59 EDT
      s('2026-11-01T04:00:00Z', '2'), // Nov 1, 00:00 EDT
      s('2026-11-02T04:59:00Z', '3'), // Nov 1, 23:59 EST (the 25th hour)
      s('2026-11-02T05:00:00Z', '4'), // Nov 2, 00:00 EST
    ]);
    expect(candles.map((c) => [c.at, c.ohlc])).toEqual([
      ['2026-10-31T04:00:00.000Z', '1 1 1 1'],
      ['2026-11-01T04:00:00.000Z', '2 3 2 3'],
      ['2026-11-02T05:00:00.000Z', '4 4 4 4'],
    ]);
  });

  test('no samples, no candles', () => {
    expect(aggregate([], '1min')).toEqual([]);
  });
});
