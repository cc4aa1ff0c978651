/** JSON shapes of the assets resource, built from database records. */
import type { AddressRecord, AssetRecord } from '../../../db/queries/assets';
import type { LatestPriceRecord } from '../../../db/queries/prices';

export interface AssetPriceView {
  primaryMarket: { symbol: string; price: string };
  underlyingMarket: { ticker: string; price: string };
  timestamp: number;
}

export function assetPriceView(asset: AssetRecord, price: LatestPriceRecord): AssetPriceView {
  return {
    primaryMarket: { symbol: asset.symbol, price: price.tokenPrice },
    underlyingMarket: { ticker: asset.ticker, price: price.underlyingPrice },
    timestamp: price.observedAt,
  };
}

export interface AddressEntryView {
  symbol: string;
  addresses: { networkChainId: string; address: string; decimals: number }[];
}

/** Address records (ordered by symbol) as one entry per symbol. */
export function addressEntryViews(records: AddressRecord[]): AddressEntryView[] {
  const entries = new Map<string, AddressEntryView>();
  for (const { symbol, networkChainId, address, decimals } of records) {
    const entry = entries.get(symbol) ?? { symbol, addresses: [] };
    entry.addresses.push({ networkChainId, address, decimals });
    entries.set(symbol, entry);
  }
  return [...entries.values()];
}
