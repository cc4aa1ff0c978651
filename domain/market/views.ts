/**
 * A latest price and a candle as clients see them, the same over REST, Server-Sent Events and gRPC: their zod
 * schemas (the API names them `AssetPrice` and `Candle` in its OpenAPI document), their types, and the views made
 * from stored values.
 */
import { z } from 'zod';
import { decimalString, epochMs } from '../json-formats';

export const assetPriceSchema = z.object({
  primaryMarket: z.object({ symbol: z.string().describe('The token.'), price: decimalString }),
  underlyingMarket: z.object({ ticker: z.string().describe('The stock behind the token.'), price: decimalString }),
  timestamp: epochMs.describe('When the price was observed.'),
});
export type AssetPrice = z.infer<typeof assetPriceSchema>;

export const candleSchema = z.object({
  timestamp: epochMs.describe('Start of the bucket.'),
  open: decimalString,
  high: decimalString,
  low: decimalString,
  close: decimalString,
});
/** A candle as clients see it (decimal strings; candles.ts's `Candle` is the one the feed computes). */
export type CandleView = z.infer<typeof candleSchema>;

/** A stored latest price of `asset`. */
export function assetPriceView(
  asset: { symbol: string; ticker: string },
  price: { tokenPrice: string; underlyingPrice: string; observedAt: number },
): AssetPrice {
  return {
    primaryMarket: { symbol: asset.symbol, price: price.tokenPrice },
    underlyingMarket: { ticker: asset.ticker, price: price.underlyingPrice },
    timestamp: price.observedAt,
  };
}

/** A stored candle. */
export function candleView(candle: { bucketStart: number; open: string; high: string; low: string; close: string }): CandleView {
  return { timestamp: candle.bucketStart, open: candle.open, high: candle.high, low: candle.low, close: candle.close };
}
