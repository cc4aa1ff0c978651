/** JSON shapes of the assets resource, built from database records. */
import type { AddressRecord, AssetRecord } from '../../../db/queries/assets';
import type { CandleRecord } from '../../../db/queries/candles';
import type { LatestPriceRecord } from '../../../db/queries/latest-prices';
import type { AddressEntry, AssetPrice, Candle } from './schemas';

export function assetPriceView(asset: AssetRecord, price: LatestPriceRecord): AssetPrice {
  return {
    primaryMarket: { symbol: asset.symbol, price: price.tokenPrice },
    underlyingMarket: { ticker: asset.ticker, price: price.underlyingPrice },
    timestamp: price.observedAt,
  };
}

/** Address records (ordered by symbol) as one entry per symbol. */
export function addressEntryViews(records: AddressRecord[]): AddressEntry[] {
  const entries = new Map<string, AddressEntry>();
  for (const { symbol, networkChainId, address, decimals } of records) {
    const entry = entries.get(symbol) ?? { symbol, addresses: [] };
    entry.addresses.push({ networkChainId, address, decimals });
    entries.set(symbol, entry);
  }
  return [...entries.values()];
}

/** A stored candle as answers and streams show it. */
export function candleView(candle: CandleRecord): Candle {
  return { timestamp: candle.bucketStart, open: candle.open, high: candle.high, low: candle.low, close: candle.close };
}
