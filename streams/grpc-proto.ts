/**
 * The gRPC interface of the live streams (proto/market_stream.proto, package `tokenstock.marketdata.v1`), loaded
 * once: the service definition the server implements and clients (tests, the benchmark) call, and its messages.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { CandleView } from '../domain/market/views';
import type { StreamEvent } from './events';

export const PROTO_PATH = path.join(__dirname, '..', 'proto', 'market_stream.proto');
export const SERVICE_NAME = 'tokenstock.marketdata.v1.MarketDataStream';

const definition = protoLoader.loadSync(PROTO_PATH, { longs: Number, defaults: true });
export const marketDataService = definition[SERVICE_NAME] as grpc.ServiceDefinition;

/** A client of the service (`new MarketDataStreamClient(address, credentials)`). */
export const MarketDataStreamClient = grpc.makeClientConstructor(marketDataService, 'MarketDataStream');

export interface StreamPriceUpdatesRequest {
  symbols: string[];
  lastEventId?: string;
}

export interface StreamOHLCRequest {
  symbol: string;
  interval: string;
  lastEventId?: string;
}

export interface PriceUpdateMessage {
  primaryMarket: { symbol: string; price: string };
  underlyingMarket: { ticker: string; price: string };
  timestamp: number;
  eventId: string;
}

export interface OHLCUpdateMessage {
  interval: string;
  timestamp: number;
  isClosed: boolean;
  primaryMarket: { symbol: string; candle: CandleView | null };
  underlyingMarket: { ticker: string; candle: CandleView | null };
  eventId: string;
}

/** The message of an event, field for field the SSE event's data plus its id. */
export function eventMessage(event: StreamEvent): PriceUpdateMessage | OHLCUpdateMessage {
  return { ...event.data, eventId: event.id };
}
