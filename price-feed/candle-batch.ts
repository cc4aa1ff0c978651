/**
 * Folds a batch of ticks into one partial candle per symbol, market, interval and bucket,
 * ready to merge into stored candles in a single statement.
 */
import type { CandleWrite, Market } from '../db/queries/candles';
import { bucketStart, INTERVALS } from '../domain/market/candles';
import { Decimal, formatDecimal } from '../domain/money';
import type { PriceTick } from './price-source';

interface Partial {
  write: CandleWrite;
  high: Decimal;
  low: Decimal;
  volume: Decimal;
}

function observe(partials: Map<string, Partial>, symbol: string, market: Market, timestamp: number, price: string, volume: string): void {
  const value = new Decimal(price);
  for (const interval of INTERVALS) {
    const start = bucketStart(timestamp, interval);
    const key = `${symbol}/${market}/${interval}/${start}`;
    const partial = partials.get(key);
    if (!partial) {
      partials.set(key, {
        write: { symbol, market, interval, bucketStart: start, open: price, high: price, low: price, close: price, volume },
        high: value,
        low: value,
        volume: new Decimal(volume),
      });
      continue;
    }
    if (value.greaterThan(partial.high)) partial.high = value;
    if (value.lessThan(partial.low)) partial.low = value;
    partial.volume = partial.volume.plus(volume);
    partial.write.close = price;
  }
}

/** Partial candles of `ticks` (applied in timestamp order). */
export function candlesOfTicks(ticks: PriceTick[]): CandleWrite[] {
  const partials = new Map<string, Partial>();
  const ordered = [...ticks].sort((a, b) => a.timestamp - b.timestamp);
  for (const tick of ordered) {
    if (tick.tokenPrice !== undefined) observe(partials, tick.symbol, 'primary', tick.timestamp, tick.tokenPrice, tick.tokenVolume ?? '0');
    if (tick.underlyingPrice !== undefined) {
      observe(partials, tick.symbol, 'underlying', tick.timestamp, tick.underlyingPrice, tick.underlyingVolume ?? '0');
    }
  }
  return [...partials.values()].map(({ write, high, low, volume }) => ({
    ...write,
    high: formatDecimal(high),
    low: formatDecimal(low),
    volume: formatDecimal(volume),
  }));
}
