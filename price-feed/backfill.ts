/**
 * Backfills history from the price model so that every OHLC interval/range pair has data:
 * 1-minute candles (from 15 s samples) for the recent days, every coarser interval rolled up from
 * the same samples, and 15-minute samples back to each token's listing for the long intervals.
 * It resumes after the newest stored candle, so a restart only fills the gap.
 *
 * Computing the samples is this process's work and inserting them PostgreSQL's, so the two overlap: each series
 * (asset, market, interval) is written by its own task, oldest chunk first (a crash leaves a prefix, which the resume
 * above completes), with up to WRITE_CONCURRENCY series in flight while the next ones are computed.
 */
import type { Database } from '../db/pool';
import { insertHistoricalCandles, latestCandleStarts, type CandleWrite, type Market } from '../db/queries/candles';
import { upsertLatestPrices } from '../db/queries/latest-prices';
import type { AssetDefinition } from '../domain/catalogue';
import { sessionsBetween } from '../domain/calendar';
import { aggregate, bucketStart, intervalMs, type Interval } from '../domain/market/candles';
import { listingTime, tickVolume, tokenPrice, underlyingPrice } from '../domain/market/price-model';
import { isMarketOpen } from '../domain/market/trading-hours';
import { formatDecimal, type Decimal } from '../domain/money';

const DAY_MS = 86_400_000;
const INSERT_CHUNK = 5_000;
const WRITE_CONCURRENCY = 4;

interface IntervalPlan {
  interval: Interval;
  /** How far back candles of this interval are kept (and backfilled). */
  retentionMs: number;
  /** Spacing of model samples that make up a candle. */
  sampleMs: number;
}

/** Retention per interval: enough for the longest range each interval serves, with slack. */
export const INTERVAL_PLANS: readonly IntervalPlan[] = [
  { interval: '1min', retentionMs: 10 * DAY_MS, sampleMs: 15_000 },
  { interval: '5min', retentionMs: 10 * DAY_MS, sampleMs: 15_000 },
  { interval: '15min', retentionMs: 10 * DAY_MS, sampleMs: 15_000 },
  { interval: '1hour', retentionMs: 40 * DAY_MS, sampleMs: 15 * 60_000 },
  { interval: '4hour', retentionMs: 40 * DAY_MS, sampleMs: 15 * 60_000 },
  { interval: '12hour', retentionMs: 100 * DAY_MS, sampleMs: 15 * 60_000 },
  { interval: '1day', retentionMs: Number.POSITIVE_INFINITY, sampleMs: 15 * 60_000 },
];

export interface BackfillOptions {
  db: Database;
  assets: readonly AssetDefinition[];
  now: number;
  seed?: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

interface Sample {
  t: number;
  price: Decimal;
  volume: Decimal;
}

function samplesBetween(asset: AssetDefinition, market: Market, from: number, to: number, stepMs: number, seed?: number): Sample[] {
  const samples: Sample[] = [];
  const price = market === 'primary' ? tokenPrice : underlyingPrice;
  for (const interval of sessionsBetween(from, to)) {
    if (!isMarketOpen(asset, market, interval.session)) continue;
    const first = Math.ceil(interval.start / stepMs) * stepMs;
    for (let t = first; t < interval.end; t += stepMs) {
      samples.push({ t, price: price(asset, t, seed), volume: tickVolume(asset, t, market).times(stepMs / 1000) });
    }
  }
  return samples;
}

function toWrites(symbol: string, market: Market, interval: Interval, samples: Sample[]): CandleWrite[] {
  return aggregate(samples, interval).map((candle) => ({
    symbol,
    market,
    interval,
    bucketStart: candle.bucketStart,
    open: formatDecimal(candle.open),
    high: formatDecimal(candle.high),
    low: formatDecimal(candle.low),
    close: formatDecimal(candle.close),
    volume: formatDecimal(candle.volume, 6),
  }));
}

async function insertInChunks(db: Database, writes: CandleWrite[]): Promise<void> {
  for (let index = 0; index < writes.length; index += INSERT_CHUNK) {
    await insertHistoricalCandles(db, writes.slice(index, index + INSERT_CHUNK));
  }
}

/** Series being written, at most `concurrency` at once; the first failure is thrown by the next `add` or by `drain`. */
class SeriesWriter {
  private readonly pending = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly db: Database,
    private readonly concurrency: number,
  ) {}

  async add(writes: CandleWrite[]): Promise<void> {
    while (this.pending.size >= this.concurrency) await Promise.race(this.pending);
    this.throwIfFailed();
    const task: Promise<void> = insertInChunks(this.db, writes)
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.pending.delete(task));
    this.pending.add(task);
  }

  async drain(): Promise<void> {
    await Promise.all(this.pending);
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

/** Fills candles up to `now` and sets the latest prices to the model's; returns the candles written. */
export async function backfillMarketData(options: BackfillOptions): Promise<number> {
  const { db, assets, now, seed, onProgress } = options;
  const newest = new Map<Interval, Map<string, number>>();
  for (const plan of INTERVAL_PLANS) newest.set(plan.interval, await latestCandleStarts(db, plan.interval));

  const writer = new SeriesWriter(db, WRITE_CONCURRENCY);
  const markets: Market[] = ['primary', 'underlying'];
  const total = assets.length * markets.length;
  let done = 0;
  let written = 0;
  for (const asset of assets) {
    for (const market of markets) {
      onProgress?.(done, total, `${asset.symbol} ${market}`);
      const starts = new Map<Interval, number>();
      for (const plan of INTERVAL_PLANS) {
        const stored = newest.get(plan.interval)?.get(`${asset.symbol}/${market}`);
        const from = Math.max(
          listingTime(asset),
          now - plan.retentionMs,
          stored === undefined ? Number.NEGATIVE_INFINITY : stored + intervalMs(plan.interval),
        );
        const aligned = bucketStart(from, plan.interval);
        if (aligned < now) starts.set(plan.interval, aligned);
      }
      // Intervals with one sample spacing are cut from one series of samples, so their candles agree.
      for (const step of new Set(INTERVAL_PLANS.map((plan) => plan.sampleMs))) {
        const plans = INTERVAL_PLANS.filter((plan) => plan.sampleMs === step && starts.has(plan.interval));
        if (plans.length === 0) continue;
        const seriesFrom = Math.min(...plans.map((plan) => starts.get(plan.interval)!));
        const samples = samplesBetween(asset, market, seriesFrom, now, step, seed);
        for (const plan of plans) {
          const from = starts.get(plan.interval)!;
          const writes = toWrites(asset.symbol, market, plan.interval, samples.filter((sample) => sample.t >= from));
          await writer.add(writes);
          written += writes.length;
        }
      }
      done += 1;
    }
  }
  await writer.drain();
  onProgress?.(done, total, 'latest prices');
  await upsertLatestPrices(
    db,
    assets.map((asset) => ({
      symbol: asset.symbol,
      tokenPrice: formatDecimal(tokenPrice(asset, now, seed)),
      underlyingPrice: formatDecimal(underlyingPrice(asset, now, seed)),
      observedAt: now,
    })),
  );
  return written;
}
