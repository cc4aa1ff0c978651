/** Time windows of the assets resource: OHLC ranges and the 24 h open-market window of price changes. */
import type { AssetRecord } from '../../../db/queries/assets';
import { rangeStart, type Range } from '../../../domain/market/candles';

/** Start (epoch ms) of `range` ending at `now` for this asset's market hours. */
export function windowStart(asset: AssetRecord, range: Range, now: number): number {
  return rangeStart(now, range, asset);
}
