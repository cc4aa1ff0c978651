/**
 * The API's Server-Sent Events streams as async iterators that survive a dropped connection: read over fetch and
 * parsed by eventsource-parser; on an end, an error or a `dropped` event they reconnect after the server's `retry`
 * (backing off to 30 s while it fails; Retry-After on 429/503) and send `Last-Event-ID`. An event id is
 * `<epoch>-<seq>` (the API process and its sequence): an event already seen is never yielded twice, and when the
 * resume was lost (another process, or an id past its replay window) `{kind:'reset'}` comes before the fresh values.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { apiErrorOf } from './errors.ts';
import type { components } from './generated/api.ts';
import { retryAfterMs, sleep } from './retry.ts';

type Schemas = components['schemas'];
/** What a `price` event carries. */
export type PriceEventData = Schemas extends { PriceStreamEvent: infer P } ? P : Schemas['AssetPrice'];
/** What a `candle` event carries. */
export type CandleEventData = Schemas extends { CandleStreamEvent: infer C } ? C : Schemas['Candle'] & { symbol: string; interval: string; isClosed: boolean };

export type StreamItem<E extends string, D> = { kind: 'event'; id: string; event: E; data: D } | { kind: 'reset'; reason: string };

export interface StreamSource {
  baseUrl: string;
  headers: Record<string, string>;
  fetch: (request: Request) => Promise<Response>;
}

export interface StreamOptions {
  /** Resume after this event id (the last one a previous iterator gave). */
  lastEventId?: string;
  /** Ends the iteration. */
  signal?: AbortSignal;
}

const MAX_RECONNECT_MS = 30_000;
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);

function parseId(id: string | undefined): { epoch: string; seq: number } | undefined {
  const match = /^([0-9a-z]+)-(\d{1,15})$/.exec(id ?? '');
  return match ? { epoch: match[1]!, seq: Number(match[2]) } : undefined;
}

/** The events of one connection, as they are parsed; ends when the connection does. */
async function* eventsOf(body: ReadableStream<Uint8Array>, onRetry: (ms: number) => void): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => pending.push(message), onRetry });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      while (pending.length > 0) yield pending.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** An SSE stream of `path` (with `query`) that reconnects and resumes; see the module's header. */
export async function* resumableStream<E extends string, D>(source: StreamSource, path: string, query: Record<string, string>, options: StreamOptions = {}): AsyncGenerator<StreamItem<E, D>> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  let retryMs = 3000;
  let failures = 0;
  let reconnecting = false;
  const url = `${source.baseUrl}${path}${Object.keys(query).length > 0 ? `?${new URLSearchParams(query)}` : ''}`;
  while (!signal?.aborted) {
    if (reconnecting) {
      try {
        await sleep(Math.min(MAX_RECONNECT_MS, retryMs * 2 ** Math.min(failures, 4)), signal);
      } catch {
        return;
      }
    }
    reconnecting = true;
    const headers = { ...source.headers, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) };
    let response: Response;
    try {
      response = await source.fetch(new Request(url, { headers, signal }));
    } catch {
      failures += 1;
      continue;
    }
    if (!response.ok || !response.body) {
      if (!RETRIED_STATUSES.has(response.status)) throw apiErrorOf(path, response, await response.json().catch(() => undefined));
      retryMs = retryAfterMs(response) ?? retryMs;
      failures += 1;
      await response.body?.cancel();
      continue;
    }
    const resumedFrom = parseId(lastEventId);
    let first = true;
    try {
      for await (const message of eventsOf(response.body, (ms) => (retryMs = ms))) {
        if (signal?.aborted) return;
        if (message.event === 'dropped') break;
        const id = parseId(message.id);
        if (first && resumedFrom && (!id || id.epoch !== resumedFrom.epoch || id.seq <= resumedFrom.seq)) {
          yield { kind: 'reset', reason: id?.epoch === resumedFrom.epoch ? 'the resume point left the replay window' : 'another API process answered' };
        }
        first = false;
        failures = 0;
        if (id && resumedFrom && id.epoch === resumedFrom.epoch && id.seq <= resumedFrom.seq) continue;
        if (message.id) lastEventId = message.id;
        yield { kind: 'event', id: message.id ?? '', event: (message.event ?? 'message') as E, data: JSON.parse(message.data) as D };
      }
    } catch {
      if (signal?.aborted) return;
      failures += 1;
    }
  }
}

/** `GET /v1/stream/prices`: the prices of `symbols` (every asset when omitted). */
export function priceStream(source: StreamSource, o: StreamOptions & { symbols?: readonly string[] }): AsyncGenerator<StreamItem<'price', PriceEventData>> {
  return resumableStream(source, '/v1/stream/prices', o.symbols ? { symbols: o.symbols.join(',') } : {}, o);
}

/** `GET /v1/assets/{symbol}/prices/ohlc/stream`: the candles of one asset at `interval` (`1min`, `5min`, `15min`). */
export function candleStream(source: StreamSource, o: StreamOptions & { symbol: string; interval?: string }): AsyncGenerator<StreamItem<'candle', CandleEventData>> {
  return resumableStream(source, `/v1/assets/${encodeURIComponent(o.symbol)}/prices/ohlc/stream`, o.interval ? { interval: o.interval } : {}, o);
}
