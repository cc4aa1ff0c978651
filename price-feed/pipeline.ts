/**
 * The market-data pipeline: every batch of ticks, from any source, becomes the latest prices
 * and merged OHLC candles of both markets, written together in one transaction.
 */
import type { Database } from '../db/pool';
import { multipliersAt } from '../db/queries/corporate-actions';
import { listLatestPrices, upsertLatestPrices, type LatestPriceRecord } from '../db/queries/latest-prices';
import { mergeCandles, type CandleWrite } from '../db/queries/candles';
import { Decimal, formatDecimal, Rounding } from '../domain/money';
import { candlesOfTicks } from './candle-batch';
import type { PriceTick } from './price-source';

const TOKEN_PRICE_DECIMALS = 10;

const canonicalOrUndefined = (value: string | undefined): string | undefined => (value === undefined ? undefined : formatDecimal(value));

/** The same tick with its decimals in canonical form ('400.50' becomes '400.5'). */
function canonical(tick: PriceTick): PriceTick {
  return {
    symbol: tick.symbol,
    timestamp: tick.timestamp,
    tokenPrice: canonicalOrUndefined(tick.tokenPrice),
    tokenVolume: canonicalOrUndefined(tick.tokenVolume),
    underlyingPrice: canonicalOrUndefined(tick.underlyingPrice),
    underlyingVolume: canonicalOrUndefined(tick.underlyingVolume),
  };
}

/** What one stored batch changed, handed to `onStored` once its transaction committed (the live streams' feed). */
export interface StoredMarketData {
  prices: LatestPriceRecord[];
  /** The partial candles merged into the stored ones (the stored candles hold the merged values). */
  candles: CandleWrite[];
}

export class MarketDataPipeline {
  private latest: Map<string, LatestPriceRecord> | undefined;

  constructor(
    private readonly db: Database,
    private readonly options: { onStored?: (stored: StoredMarketData) => void } = {},
  ) {}

  private async latestPrices(): Promise<Map<string, LatestPriceRecord>> {
    this.latest ??= new Map((await listLatestPrices(this.db)).map((price) => [price.symbol, price]));
    return this.latest;
  }

  /**
   * Completes ticks that carry only one side: a missing token price is the underlying price times
   * the shares multiplier in force; a missing underlying price leaves the underlying market untouched.
   */
  private async complete(batch: PriceTick[]): Promise<PriceTick[]> {
    const ticks = batch.map(canonical);
    if (ticks.every((tick) => tick.tokenPrice !== undefined)) return ticks;
    const multipliers = await multipliersAt(this.db, Math.max(...ticks.map((tick) => tick.timestamp)));
    return ticks.map((tick) => {
      if (tick.tokenPrice !== undefined || tick.underlyingPrice === undefined) return tick;
      const multiplier = multipliers.get(tick.symbol) ?? '1';
      const tokenPrice = formatDecimal(new Decimal(tick.underlyingPrice).times(multiplier), TOKEN_PRICE_DECIMALS, Rounding.HALF_EVEN);
      return { ...tick, tokenPrice };
    });
  }

  /** Stores a batch; ticks older than a symbol's latest price still extend its candles. */
  async ingest(batch: PriceTick[]): Promise<void> {
    if (batch.length === 0) return;
    const ticks = await this.complete(batch);
    const latest = await this.latestPrices();
    const changed = new Map<string, LatestPriceRecord>();
    for (const tick of [...ticks].sort((a, b) => a.timestamp - b.timestamp)) {
      const previous = changed.get(tick.symbol) ?? latest.get(tick.symbol);
      if (previous && previous.observedAt > tick.timestamp) continue;
      const tokenPrice = tick.tokenPrice ?? previous?.tokenPrice;
      const underlyingPrice = tick.underlyingPrice ?? previous?.underlyingPrice ?? tokenPrice;
      if (tokenPrice === undefined || underlyingPrice === undefined) continue;
      changed.set(tick.symbol, { symbol: tick.symbol, tokenPrice, underlyingPrice, observedAt: tick.timestamp });
    }
    const candles = candlesOfTicks(ticks);
    const client = await this.db.connect();
    try {
      await client.query('BEGIN');
      await upsertLatestPrices(client, [...changed.values()]);
      await mergeCandles(client, candles);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw new Error('storing market data failed', { cause: error });
    } finally {
      client.release();
    }
    for (const [symbol, price] of changed) latest.set(symbol, price);
    this.options.onStored?.({ prices: [...changed.values()], candles });
  }

  /** Forget the in-memory latest prices (after another writer changed them). */
  reload(): void {
    this.latest = undefined;
  }
}
