/**
 * What a stream may ask for, validated the same way for Server-Sent Events and gRPC: symbols of the catalogue
 * (malformed: INVALID_SYMBOL, unknown: ASSET_NOT_FOUND) and one of the streamed candle intervals (INVALID_INTERVAL).
 */
import { z } from 'zod';
import { ApiError } from '../domain/errors';
import { INVALID_SYMBOL_MESSAGE, symbolSchema } from '../domain/token-symbol';
import { STREAM_INTERVALS, type StreamInterval } from './events';
import type { MarketStreamHub, StreamRequest } from './hub';

/** At most this many symbols in one price stream. */
export const MAX_STREAM_SYMBOLS = 200;

export const streamIntervalSchema = z.enum(STREAM_INTERVALS);

async function resolveSymbol(hub: MarketStreamHub, symbol: string): Promise<string> {
  if (!symbolSchema.safeParse(symbol).success) throw new ApiError('INVALID_SYMBOL', INVALID_SYMBOL_MESSAGE);
  if (!(await hub.findAsset(symbol))) throw new ApiError('ASSET_NOT_FOUND', `Asset ${symbol} not found`);
  return symbol;
}

/** The symbols of a stream (duplicates removed), each of the catalogue; none means every asset. */
export async function streamSymbols(hub: MarketStreamHub, symbols: readonly string[]): Promise<string[]> {
  const unique = [...new Set(symbols)];
  if (unique.length > MAX_STREAM_SYMBOLS) throw new ApiError('INVALID_PARAMETER', `At most ${MAX_STREAM_SYMBOLS} symbols per stream`);
  if (unique.length === 0) return hub.symbols();
  const resolved: string[] = [];
  for (const symbol of unique) resolved.push(await resolveSymbol(hub, symbol));
  return resolved;
}

/** The prices of `symbols` (duplicates removed); none means every asset. */
export async function priceStreamRequest(hub: MarketStreamHub, symbols: readonly string[]): Promise<StreamRequest> {
  return { kind: 'prices', symbols: await streamSymbols(hub, symbols) };
}

/** The candles of `symbols` (none: every asset); no interval means `1min`. */
export async function candleStreamRequest(hub: MarketStreamHub, symbols: readonly string[], interval: string | undefined): Promise<StreamRequest> {
  const parsed = streamIntervalSchema.safeParse(interval === undefined || interval === '' ? '1min' : interval);
  const resolved = await streamSymbols(hub, symbols);
  if (!parsed.success) throw new ApiError('INVALID_INTERVAL', `Invalid interval ${interval}: streams serve ${STREAM_INTERVALS.join(', ')}`);
  return { kind: 'candles', symbols: resolved, interval: parsed.data as StreamInterval };
}
