/**
 * The reference issuer's gRPC interface as this product serves it (proto/ondo/gm/backend/v1/backend.proto, service
 * `ondo.gm.backend.v1.BackendService`): the service definition, and the hub's events as its messages. An event's
 * `updates` entry is encoded once, whatever the number of calls it goes to: a frame is those entries one after the
 * other (a repeated field is the concatenation of its entries on the wire), then the frame's own fields.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { CandleView } from '../domain/market/views';
import type { CandleEventData, PriceEventData, StreamEvent } from './events';

export const BACKEND_PROTO_PATH = path.join(__dirname, '..', 'proto', 'ondo', 'gm', 'backend', 'v1', 'backend.proto');
export const BACKEND_SERVICE_NAME = 'ondo.gm.backend.v1.BackendService';

const definition = protoLoader.loadSync(BACKEND_PROTO_PATH, { longs: String, defaults: true });
export const backendService = definition[BACKEND_SERVICE_NAME] as grpc.ServiceDefinition;

/** A client of the service (`new BackendServiceClient(address, credentials)`). */
export const BackendServiceClient = grpc.makeClientConstructor(backendService, 'BackendService');

export interface SymbolsRequest {
  symbols?: string[];
  lastEventId?: string;
}

export interface OHLCRequest extends SymbolsRequest {
  interval?: string;
}

/** Epoch milliseconds as the reference's uint64 nanoseconds (a decimal string: past 2^53). */
export function nanoseconds(epochMs: number): string {
  return (BigInt(epochMs) * 1_000_000n).toString();
}

export interface PriceUpdateMessage {
  ticker: string;
  symbol: string;
  stockPrice: string;
  tokenPrice: string;
  timestamp: string;
}

export function priceUpdateMessage(data: PriceEventData): PriceUpdateMessage {
  return {
    ticker: data.underlyingMarket.ticker,
    symbol: data.primaryMarket.symbol,
    stockPrice: data.underlyingMarket.price,
    tokenPrice: data.primaryMarket.price,
    timestamp: nanoseconds(data.timestamp),
  };
}

const ohlcValues = (candle: CandleView | null) =>
  candle ? { open: candle.open, high: candle.high, low: candle.low, close: candle.close } : { open: '', high: '', low: '', close: '' };

export function ohlcUpdateMessage(data: CandleEventData): object {
  return {
    primaryMarket: { symbol: data.primaryMarket.symbol, ...ohlcValues(data.primaryMarket.candle) },
    underlyingMarket: { ticker: data.underlyingMarket.ticker, ...ohlcValues(data.underlyingMarket.candle) },
    isClosed: data.isClosed,
    timestamp: nanoseconds(data.timestamp),
    interval: data.interval,
  };
}

const serializers = {
  price: backendService.StreamPriceUpdates!.responseSerialize,
  candle: backendService.StreamOHLC!.responseSerialize,
  depth: backendService.StreamSoftQuoteDepth!.responseSerialize,
};

/** The event as one entry of a frame's `updates`, encoded once for every call. */
function encodedUpdate(event: StreamEvent): Buffer {
  event.encodedUpdate ??=
    event.name === 'price' ? serializers.price({ updates: [priceUpdateMessage(event.data)] }) : serializers.candle({ updates: [ohlcUpdateMessage(event.data)] });
  return event.encodedUpdate;
}

/** One frame of StreamPriceUpdates or StreamOHLC: `events` (all of one kind) as its `updates`, and the last one's id. */
export function encodedFrame(events: readonly StreamEvent[]): Buffer {
  const last = events.at(-1)!;
  return Buffer.concat([...events.map(encodedUpdate), serializers[last.name]({ lastEventId: last.id })]);
}

export interface SoftQuoteDepthMessage {
  symbol: string;
  ticker: string;
  sessionType: string;
  error: string;
  timestamp: string;
  bids: { price: string; quantity: string }[];
  asks: { price: string; quantity: string }[];
}

/** One frame of StreamSoftQuoteDepth. */
export function encodedDepthFrame(updates: readonly SoftQuoteDepthMessage[]): Buffer {
  return serializers.depth({ updates });
}
