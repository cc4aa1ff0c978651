/**
 * What the live streams carry: one event per price change or candle update, in the shapes of the REST answers
 * (an item of `GET /v1/assets/all/prices/latest`, a candle of `GET /v1/assets/{symbol}/prices/ohlc`), serialised
 * for Server-Sent Events once when it is made, whatever the number of subscribers.
 */
import type { AssetRecord } from '../db/queries/assets';
import type { CandleRecord } from '../db/queries/candles';
import type { LatestPriceRecord } from '../db/queries/latest-prices';
import type { Interval } from '../domain/market/candles';
import { assetPriceView, candleView, type AssetPrice, type CandleView } from '../domain/market/views';

/** The candle intervals the streams serve. */
export const STREAM_INTERVALS = ['1min', '5min', '15min'] as const satisfies readonly Interval[];
export type StreamInterval = (typeof STREAM_INTERVALS)[number];

export type PriceEventData = AssetPrice;

export interface CandleEventData {
  interval: StreamInterval;
  /** Bucket start (epoch ms). */
  timestamp: number;
  /** True in exactly one event per bucket: its final values. */
  isClosed: boolean;
  primaryMarket: { symbol: string; candle: CandleView | null };
  underlyingMarket: { ticker: string; candle: CandleView | null };
}

interface EventBase {
  /** Position in this process's stream of events; ids compare by it. */
  readonly seq: number;
  /** `<epoch>-<seq>`: the SSE id a client resumes from with `Last-Event-ID`. */
  readonly id: string;
  readonly topic: string;
  /** The Server-Sent Events frame. */
  readonly sse: string;
  /** When it was published (Date.now), for the replay window. */
  readonly publishedAt: number;
  /** The gRPC encoding, made by the first gRPC subscriber that sends it and reused by the others. */
  encoded?: Buffer;
  /** As one entry of the `updates` of a BackendService frame (backend-proto.ts), made once like `encoded`. */
  encodedUpdate?: Buffer;
}

export type StreamEvent = (EventBase & { readonly name: 'price'; readonly data: PriceEventData }) | (EventBase & { readonly name: 'candle'; readonly data: CandleEventData });

export const priceTopic = (symbol: string): string => `price:${symbol}`;
export const candleTopic = (symbol: string, interval: StreamInterval): string => `candle:${symbol}:${interval}`;

export function priceEventData(asset: AssetRecord, price: LatestPriceRecord): PriceEventData {
  return assetPriceView(asset, price);
}

export function candleEventData(
  asset: AssetRecord,
  interval: StreamInterval,
  bucketStart: number,
  candles: { primary?: CandleRecord; underlying?: CandleRecord },
  isClosed: boolean,
): CandleEventData {
  return {
    interval,
    timestamp: bucketStart,
    isClosed,
    primaryMarket: { symbol: asset.symbol, candle: candles.primary ? candleView(candles.primary) : null },
    underlyingMarket: { ticker: asset.ticker, candle: candles.underlying ? candleView(candles.underlying) : null },
  };
}

/** One Server-Sent Events frame. */
export function sseFrame(id: string, name: string, data: unknown): string {
  return `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
