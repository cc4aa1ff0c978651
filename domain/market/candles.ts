/**
 * OHLC candles: the intervals and ranges of the API, their valid pairs, bucket alignment, where a
 * range starts for an asset, and aggregation of price samples into candles.
 *
 * Buckets up to 12 hours are aligned to UTC (epoch multiples); `1day` buckets run from New York
 * midnight to New York midnight, so they are 23 or 25 hours long on DST change days.
 */
import { newYorkDate, newYorkTime, openWindowStart } from '../calendar';
import { type Decimal } from '../money';
import { type MarketHours, isTokenOpen } from './trading-hours';

export const INTERVALS = ['1min', '5min', '15min', '1hour', '4hour', '12hour', '1day'] as const;
export type Interval = (typeof INTERVALS)[number];

export const RANGES = ['1day', '1month', '3month', '6month', '1year', 'all'] as const;
export type Range = (typeof RANGES)[number];

/** The interval/range pairs the OHLC endpoint serves. */
export const VALID_PAIRS: readonly { interval: Interval; range: Range }[] = [
  { interval: '1min', range: '1day' },
  { interval: '5min', range: '1day' },
  { interval: '15min', range: '1day' },
  { interval: '1hour', range: '1month' },
  { interval: '4hour', range: '1month' },
  { interval: '12hour', range: '3month' },
  { interval: '1day', range: '3month' },
  { interval: '1day', range: '6month' },
  { interval: '1day', range: '1year' },
  { interval: '1day', range: 'all' },
];

export function isValidPair(interval: Interval, range: Range): boolean {
  return VALID_PAIRS.some((pair) => pair.interval === interval && pair.range === range);
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const INTERVAL_MS: Readonly<Record<Interval, number>> = {
  '1min': MINUTE_MS,
  '5min': 5 * MINUTE_MS,
  '15min': 15 * MINUTE_MS,
  '1hour': HOUR_MS,
  '4hour': 4 * HOUR_MS,
  '12hour': 12 * HOUR_MS,
  '1day': DAY_MS,
};

/** Nominal length of an interval in ms (a `1day` bucket may be 23 or 25 hours across DST changes). */
export function intervalMs(interval: Interval): number {
  return INTERVAL_MS[interval];
}

/** Start (epoch ms) of the bucket of `interval` containing `t`. */
export function bucketStart(t: number, interval: Interval): number {
  if (interval === '1day') return newYorkTime(newYorkDate(t), '00:00');
  const size = INTERVAL_MS[interval];
  return Math.floor(t / size) * size;
}

/** End (exclusive) of the bucket that starts at `start`, i.e. the start of the next bucket. */
export function bucketEnd(start: number, interval: Interval): number {
  // Every New York day is 23–25 h long, so start + 25 h always lies in the next day.
  if (interval === '1day') return bucketStart(start + 25 * HOUR_MS, '1day');
  return start + INTERVAL_MS[interval];
}

/** Length of each range other than `1day` and `all`, in days. */
const RANGE_DAYS: Readonly<Record<Exclude<Range, '1day' | 'all'>, number>> = {
  '1month': 30,
  '3month': 90,
  '6month': 180,
  '1year': 365,
};

/** What `rangeStart` needs of an asset; `listedAt` is a `YYYY-MM-DD` date or epoch ms. */
export interface RangeAsset extends MarketHours {
  listedAt: string | number;
}

/**
 * Start (epoch ms) of `range` ending at `now`, never before the asset's listing:
 * `1day` is the plain rolling 24 h for assets tradable off-hours and, for the rest, the window
 * holding the last 24 h of open-market time (so over a weekend it reaches back into Friday);
 * `1month`/`3month`/`6month`/`1year` are 30/90/180/365 days; `all` starts at listing.
 */
export function rangeStart(now: number, range: Range, asset: RangeAsset): number {
  const listedAt = typeof asset.listedAt === 'number' ? asset.listedAt : newYorkTime(asset.listedAt, '00:00');
  let start: number;
  if (range === 'all') start = listedAt;
  else if (range === '1day') {
    start = asset.tradableOffhours ? now - DAY_MS : openWindowStart(now, DAY_MS, (session) => isTokenOpen(asset, session));
  } else start = now - RANGE_DAYS[range] * DAY_MS;
  return Math.max(start, listedAt);
}

/** One observation of a market: price and the volume traded since the previous sample. */
export interface Sample {
  t: number;
  price: Decimal;
  volume: Decimal;
}

export interface Candle {
  bucketStart: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  volume: Decimal;
}

/**
 * Candles of `interval` from samples: open is the first price of the bucket, close the last, volume
 * the sum. Buckets without samples produce no candle. Samples out of time order are sorted first.
 */
export function aggregate(samples: readonly Sample[], interval: Interval): Candle[] {
  let ordered = samples;
  for (let i = 1; i < samples.length; i++) {
    if ((samples[i] as Sample).t < (samples[i - 1] as Sample).t) {
      ordered = [...samples].sort((a, b) => a.t - b.t);
      break;
    }
  }
  const candles: Candle[] = [];
  let current: Candle | undefined;
  let currentEnd = -Infinity;
  for (const sample of ordered) {
    if (current === undefined || sample.t >= currentEnd) {
      const start = bucketStart(sample.t, interval);
      currentEnd = bucketEnd(start, interval);
      current = { bucketStart: start, open: sample.price, high: sample.price, low: sample.price, close: sample.price, volume: sample.volume };
      candles.push(current);
      continue;
    }
    if (sample.price.greaterThan(current.high)) current.high = sample.price;
    if (sample.price.lessThan(current.low)) current.low = sample.price;
    current.close = sample.price;
    current.volume = current.volume.plus(sample.volume);
  }
  return candles;
}
