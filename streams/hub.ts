/**
 * The fan-out of live market data in this process. The market-data pipeline hands it every stored batch
 * (`publishStored`); it turns the batch into price and candle events once, keeps the latest price and the current
 * candle of every symbol, and hands each event to the replay window (replay-window.ts, for `Last-Event-ID`) and to
 * the subscribers of its topic (subscriptions.ts): the cost of a tick beyond one event per topic is the write to
 * each subscriber.
 * A candle closes (one final event with `isClosed`) when the next bucket of its symbol starts or, at the latest,
 * `closeGraceMs` after its bucket ended by the clock; a tick arriving later for a closed bucket sends its closed
 * candle again, revised.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import { listAssets, type AssetRecord } from '../db/queries/assets';
import { listLatestPrices, type LatestPriceRecord } from '../db/queries/latest-prices';
import { readCandles, readNewestCandles, type CandleRecord, type CandleWrite, type StoredCandle } from '../db/queries/candles';
import { bucketEnd } from '../domain/market/candles';
import {
  candleEventData,
  candleTopic,
  priceEventData,
  priceTopic,
  sseFrame,
  STREAM_INTERVALS,
  type CandleEventData,
  type PriceEventData,
  type StreamEvent,
  type StreamInterval,
} from './events';
import { ReplayWindow } from './replay-window';
import { Subscriptions, type Subscriber } from './subscriptions';

/** What a stored batch changed: the pipeline's `StoredMarketData`, or another process's announcement of it. */
export interface HubBatch {
  prices: LatestPriceRecord[];
  /** The candle buckets it touched (the stored candles are read back). */
  candles: Pick<CandleWrite, 'symbol' | 'interval' | 'bucketStart'>[];
}

/** What a stream asks for: the prices of some symbols, or the candles of some symbols in one interval. */
export type StreamRequest = { kind: 'prices'; symbols: string[] } | { kind: 'candles'; symbols: string[]; interval: StreamInterval };

export interface MarketStreamHubOptions {
  db: Database;
  /** Epoch ms; decides when candles close. Tests pin it. */
  clock?: () => number;
  /** How long published events stay replayable for `Last-Event-ID` (default 2 minutes). */
  retainMs?: number;
  /** At most this many events are kept for replay, whatever `retainMs` says (default 200,000). */
  maxRetainedEvents?: number;
  /** How long after its bucket ends a candle waits for late ticks before it closes (default 2 s). */
  closeGraceMs?: number;
  /** How often candles are checked for closing (default 1 s). */
  sweepMs?: number;
  logger?: Logger;
}

type PriceEvent = Extract<StreamEvent, { name: 'price' }>;
type CandleEvent = Extract<StreamEvent, { name: 'candle' }>;

const STREAMED = new Set<string>(STREAM_INTERVALS);
const ASSET_RELOAD_MS = 10_000;

export class MarketStreamHub {
  /** Distinguishes this process's event ids from another's (or a previous run's). */
  readonly epoch = Date.now().toString(36);
  /** Tells this process's announcements to other processes from theirs. */
  readonly origin = randomUUID();
  private seq = 0;
  private assets = new Map<string, AssetRecord>();
  private assetsLoadedAt = 0;
  private readonly prices = new Map<string, PriceEvent>();
  private readonly candles = new Map<string, CandleEvent>();
  private readonly subscribers: Subscriptions;
  private readonly replayWindow: ReplayWindow;
  private queue: Promise<void> = Promise.resolve();
  /** Batches whose prices wait in `queue` (later prices must not overtake them). */
  private queuedPrices = 0;
  private isReady = false;
  private loaded: Promise<void> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly clock: () => number;
  private readonly closeGraceMs: number;

  constructor(private readonly options: MarketStreamHubOptions) {
    this.clock = options.clock ?? Date.now;
    this.closeGraceMs = options.closeGraceMs ?? 2_000;
    this.subscribers = new Subscriptions(options.logger);
    this.replayWindow = new ReplayWindow(this.epoch, options.retainMs ?? 120_000, options.maxRetainedEvents ?? 200_000);
  }

  /** Loads the catalogue and latest prices, and starts closing candles by the clock. */
  async start(): Promise<void> {
    await this.ready();
    this.sweeper ??= setInterval(() => this.sweep(), this.options.sweepMs ?? 1_000);
    this.sweeper.unref();
  }

  /** Stops the clock and waits for the batches already handed over. */
  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    await this.queue;
  }

  /**
   * The market-data pipeline's hook: a batch that was just committed. Its prices go out at once (once the catalogue is
   * loaded); its candles after they are read back, in the order batches arrive.
   */
  publishStored(stored: HubBatch): void {
    const now = this.isReady && this.queuedPrices === 0 && stored.prices.every((price) => this.assets.has(price.symbol));
    if (now) this.publishPrices(stored.prices);
    else this.queuedPrices += 1;
    this.queue = this.queue
      .then(async () => {
        if (!now) {
          this.queuedPrices -= 1;
          await this.ready();
          for (const price of stored.prices) await this.asset(price.symbol);
          this.publishPrices(stored.prices);
        }
        await this.publishCandles(stored.candles);
      })
      .catch((error: unknown) => this.options.logger?.error({ err: error }, 'live market data: a stored batch could not be streamed'));
  }

  /**
   * Catches up from PostgreSQL after updates may have been missed (a lost notification connection): newer latest
   * prices, and the newest bucket of every candle stream this process serves.
   */
  resync(): void {
    this.queue = this.queue
      .then(async () => {
        await this.ready();
        const newer = (await listLatestPrices(this.options.db)).filter((price) => (this.prices.get(priceTopic(price.symbol))?.data.timestamp ?? -1) < price.observedAt);
        this.publishPrices(newer);
        const candles: HubBatch['candles'] = [];
        for (const event of this.candles.values()) {
          const rows = await readNewestCandles(this.options.db, event.data.primaryMarket.symbol, event.data.interval);
          if (rows[0]) candles.push({ symbol: rows[0].symbol, interval: rows[0].interval, bucketStart: rows[0].bucketStart });
        }
        await this.publishCandles(candles);
      })
      .catch((error: unknown) => this.options.logger?.error({ err: error }, 'live market data: catching up from PostgreSQL failed'));
  }

  /** Resolves once every batch handed over so far has been published. */
  flushed(): Promise<void> {
    return this.queue;
  }

  /** The asset of a symbol, if the catalogue has it. */
  async findAsset(symbol: string): Promise<AssetRecord | undefined> {
    await this.ready();
    return this.asset(symbol);
  }

  /** Every symbol of the catalogue. */
  async symbols(): Promise<string[]> {
    await this.ready();
    return [...this.assets.keys()];
  }

  /** Loads what `subscribe` needs to answer `request` at once (the current candle of a symbol nothing has ticked for yet). */
  async prepare(request: StreamRequest): Promise<void> {
    await this.ready();
    if (request.kind !== 'candles') return;
    for (const symbol of request.symbols) {
      const topic = candleTopic(symbol, request.interval);
      if (this.candles.has(topic)) continue;
      const asset = await this.asset(symbol);
      const rows = await readNewestCandles(this.options.db, symbol, request.interval);
      if (!asset || rows.length === 0 || this.candles.has(topic)) continue;
      const bucket = rows[0]!.bucketStart;
      const closed = bucketEnd(bucket, request.interval) + this.closeGraceMs <= this.clock();
      this.candles.set(topic, this.make(topic, 'candle', candleEventData(asset, request.interval, bucket, byMarket(rows), closed)));
    }
  }

  /** The hub's clock (epoch ms): what the streams take as now. */
  now(): number {
    return this.clock();
  }

  /** The latest published price of `symbol`, if any. */
  latestPrice(symbol: string): PriceEventData | undefined {
    return this.prices.get(priceTopic(symbol))?.data;
  }

  /**
   * Registers `subscriber` and sends what it starts with: after `lastEventId` of this process's replay window, the
   * events it missed; otherwise the latest price of each symbol (or the current candle). Returns the unsubscribe.
   */
  subscribe(request: StreamRequest, subscriber: Subscriber, lastEventId?: string): () => void {
    const topics = topicsOf(request);
    let subscribed = true;
    const remove = this.subscribers.add(topics, subscriber);
    const unsubscribe = (): void => {
      subscribed = false;
      remove();
    };
    const after = this.replayWindow.resumePoint(lastEventId);
    const initial = after === undefined ? this.snapshot(topics) : this.replayWindow.after(after, new Set(topics));
    for (const event of initial) {
      if (!subscribed) break;
      subscriber.deliver(event);
    }
    return unsubscribe;
  }

  /** Ends every stream (before the servers close: open streams would keep them waiting). */
  endSubscriptions(reason: string): void {
    this.subscribers.endAll(reason);
  }

  /** Subscribers of every topic together (one stream of several symbols counts once per symbol). */
  subscriptionCount(): number {
    return this.subscribers.count();
  }

  /** Closes every open candle whose bucket ended `closeGraceMs` ago, and forgets events past the replay window. */
  sweep(): void {
    const now = this.clock();
    for (const event of [...this.candles.values()]) {
      const { data } = event;
      if (!data.isClosed && bucketEnd(data.timestamp, data.interval) + this.closeGraceMs <= now) this.close(event);
    }
    this.replayWindow.evict();
  }

  private ready(): Promise<void> {
    this.loaded ??= (async () => {
      await this.loadAssets();
      for (const price of await listLatestPrices(this.options.db)) {
        const asset = this.assets.get(price.symbol);
        const topic = priceTopic(price.symbol);
        if (asset && !this.prices.has(topic)) this.prices.set(topic, this.make(topic, 'price', priceEventData(asset, price)));
      }
      this.isReady = true;
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw new Error('loading the catalogue and latest prices for the live streams failed', { cause: error });
    });
    return this.loaded;
  }

  private async loadAssets(): Promise<void> {
    this.assets = new Map((await listAssets(this.options.db)).map((asset) => [asset.symbol, asset]));
    this.assetsLoadedAt = Date.now();
  }

  private async asset(symbol: string): Promise<AssetRecord | undefined> {
    if (!this.assets.has(symbol) && Date.now() - this.assetsLoadedAt > ASSET_RELOAD_MS) await this.loadAssets();
    return this.assets.get(symbol);
  }

  /** Publishes prices of symbols in the catalogue, oldest first; a price older than the one published is skipped. */
  private publishPrices(prices: HubBatch['prices']): void {
    for (const price of [...prices].sort((a, b) => a.observedAt - b.observedAt)) {
      const asset = this.assets.get(price.symbol);
      const topic = priceTopic(price.symbol);
      const previous = this.prices.get(topic);
      if (!asset || (previous && previous.data.timestamp > price.observedAt)) continue;
      this.publish(this.make(topic, 'price', priceEventData(asset, price)));
    }
  }

  /** Reads the stored candles a batch touched and publishes their changes. */
  private async publishCandles(candles: HubBatch['candles']): Promise<void> {
    const keys = new Map<string, { symbol: string; interval: string; bucketStart: number }>();
    for (const { symbol, interval, bucketStart } of candles) {
      if (STREAMED.has(interval)) keys.set(`${symbol}|${interval}|${bucketStart}`, { symbol, interval, bucketStart });
    }
    if (keys.size === 0) return;
    const buckets = new Map<string, StoredCandle[]>();
    for (const row of await readCandles(this.options.db, [...keys.values()])) {
      const key = `${row.symbol}|${row.interval}|${row.bucketStart}`;
      buckets.set(key, [...(buckets.get(key) ?? []), row]);
    }
    const ordered = [...buckets.values()].sort((a, b) => a[0]!.bucketStart - b[0]!.bucketStart);
    for (const rows of ordered) {
      const { symbol, interval, bucketStart } = rows[0]!;
      const asset = await this.asset(symbol);
      if (asset) this.applyCandle(asset, interval as StreamInterval, bucketStart, byMarket(rows));
    }
  }

  private applyCandle(asset: AssetRecord, interval: StreamInterval, bucket: number, candles: { primary?: CandleRecord; underlying?: CandleRecord }): void {
    const topic = candleTopic(asset.symbol, interval);
    const current = this.candles.get(topic);
    if (current) {
      if (bucket < current.data.timestamp || (bucket === current.data.timestamp && current.data.isClosed)) {
        this.revise(asset, interval, bucket, candles, current);
        return;
      }
      if (bucket > current.data.timestamp && !current.data.isClosed) this.close(current);
    }
    const data = candleEventData(asset, interval, bucket, candles, false);
    if (current && bucket === current.data.timestamp && sameCandles(current.data, data)) return;
    this.publish(this.make(topic, 'candle', data));
  }

  private close(event: CandleEvent): void {
    this.publish(this.make(event.topic, 'candle', { ...event.data, isClosed: true }));
  }

  /**
   * A late tick changed a bucket that is over (closed, or superseded by a newer one): its closed candle is sent
   * again, revised, so that the last closed event of every bucket equals what `/prices/ohlc` answers. A revision of
   * an older bucket leaves the current candle (what new subscribers get first) as it is.
   */
  private revise(asset: AssetRecord, interval: StreamInterval, bucket: number, candles: { primary?: CandleRecord; underlying?: CandleRecord }, current: CandleEvent): void {
    const data = candleEventData(asset, interval, bucket, candles, true);
    if (bucket === current.data.timestamp && sameCandles(current.data, data)) return;
    this.publish(this.make(current.topic, 'candle', data), { current: bucket === current.data.timestamp });
  }

  private make(topic: string, name: 'price', data: PriceEventData): PriceEvent;
  private make(topic: string, name: 'candle', data: CandleEventData): CandleEvent;
  private make(topic: string, name: 'price' | 'candle', data: PriceEventData | CandleEventData): StreamEvent {
    this.seq += 1;
    const id = `${this.epoch}-${this.seq}`;
    return { seq: this.seq, id, topic, name, data, sse: sseFrame(id, name, data), publishedAt: Date.now() } as StreamEvent;
  }

  /** Hands `event` to its subscribers and the replay window; unless `current` is false, it is also its topic's latest state. */
  private publish(event: StreamEvent, { current = true } = {}): void {
    if (event.name === 'price') this.prices.set(event.topic, event);
    else if (current) this.candles.set(event.topic, event);
    this.replayWindow.push(event);
    this.subscribers.deliver(event);
  }

  /** The latest state of each topic: what a new subscriber starts with. */
  private snapshot(topics: string[]): StreamEvent[] {
    const events = topics.flatMap((topic) => this.prices.get(topic) ?? this.candles.get(topic) ?? []);
    return events.sort((a, b) => a.seq - b.seq);
  }
}

export function topicsOf(request: StreamRequest): string[] {
  return request.kind === 'prices' ? request.symbols.map(priceTopic) : request.symbols.map((symbol) => candleTopic(symbol, request.interval));
}

function byMarket(rows: StoredCandle[]): { primary?: CandleRecord; underlying?: CandleRecord } {
  return { primary: rows.find((row) => row.market === 'primary'), underlying: rows.find((row) => row.market === 'underlying') };
}

function sameCandles(a: CandleEventData, b: CandleEventData): boolean {
  return JSON.stringify(a.primaryMarket) === JSON.stringify(b.primaryMarket) && JSON.stringify(a.underlyingMarket) === JSON.stringify(b.underlyingMarket);
}
