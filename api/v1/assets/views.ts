/** JSON shapes of the assets resource, built from database records. */
import type { AssetRecord } from '../../../db/queries/assets';
import type { LatestPriceRecord } from '../../../db/queries/market-data';

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
