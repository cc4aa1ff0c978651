/**
 * The gRPC server of the live streams on its own port (GRPC_PORT), over the same fan-out as Server-Sent Events:
 * - `ondo.gm.backend.v1.BackendService` (proto/ondo/gm/backend/v1/backend.proto), the reference issuer's interface:
 *   HealthCheck (no key); StreamPriceUpdates and StreamOHLC, whose updates go out batched, one frame per drain window
 *   (`frameWindowMs`) with the updates gathered meanwhile; StreamSoftQuoteDepth, each asset's depth ladder (depth.ts)
 *   on connect and after its price changes, at most one frame per DEPTH_WINDOW_MS.
 * - `tokenstock.marketdata.v1.MarketDataStream` (proto/market_stream.proto), this product's first interface, kept
 *   for the clients written to it: one update per frame.
 * Calls authenticate with the API key as metadata `x-api-key` (missing or invalid: UNAUTHENTICATED; an address past
 * its failed authentications a minute, as on HTTP: RESOURCE_EXHAUSTED before the lookup), count against the key's
 * allowance of open streams (RESOURCE_EXHAUSTED), and are validated like the SSE routes. Each event is encoded once
 * and the bytes reused for every call; a call with more than `maxPendingMessages` frames unsent is ended with
 * RESOURCE_EXHAUSTED and a reason.
 */
import * as grpc from '@grpc/grpc-js';
import type { ApiKeyResolver } from '../access/api-keys';
import { failedAuthPolicy, FailedAuthentications } from '../access/failed-auth';
import type { Logger } from '../config/logger';
import { isDatabaseUnreachable, type Queryable } from '../db/pool';
import { failedAuthentications, openStreams, rateLimitRefusals } from '../metrics/metrics';
import { ApiError } from '../domain/errors';
import { sessionIntervalAt } from '../domain/calendar';
import type { StreamEvent } from './events';
import { eventMessage, marketDataService, type StreamOHLCRequest, type StreamPriceUpdatesRequest } from './grpc-proto';
import type { StreamRequest } from './hub';
import type { Subscriber } from './subscriptions';
import type { MarketStreams } from './market-streams';
import { candleStreamRequest, priceStreamRequest } from './requests';
import { backendService, encodedDepthFrame, encodedFrame, type OHLCRequest, type SoftQuoteDepthMessage, type SymbolsRequest } from './backend-proto';
import { softQuoteDepth, type DepthPolicy } from './depth';

export interface GrpcStreamServer {
  /** `host:port` clients dial. */
  address: string;
  port: number;
  /** Ends every open call (UNAVAILABLE) and stops listening. */
  stop(): Promise<void>;
}

export interface StartGrpcServerParameters {
  streams: MarketStreams;
  /** Where depth ladders read the assets' trading status and pricing. */
  db: Queryable;
  keys: ApiKeyResolver;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Failed authentications a client address may make per minute (AUTH_FAILURES_PER_MINUTE; default 10). */
  failuresPerMinute?: number;
  /** How depth ladders are priced (QUOTE_MAX_PRICE_AGE_MS, LIMITED_MAX_ORDER_NOTIONAL). */
  depth: DepthPolicy;
  logger?: Logger;
}

/** At most one StreamSoftQuoteDepth frame per call this often (the reference's flush interval). */
export const DEPTH_WINDOW_MS = 250;

/** The client's IP address from a gRPC peer (`ipv4:127.0.0.1:5000`, `[::1]:5000`). */
function peerAddress(peer: string): string {
  return peer.replace(/^ipv[46]:/, '').replace(/:\d+$/, '');
}

type StreamCall = grpc.ServerWritableStream<unknown, unknown>;

/** What one call subscribes to the fan-out: how its events become frames. */
type Sink = (call: {
  request: StreamRequest;
  /** Sends one encoded frame, or ends a call too far behind. */
  write(frame: Buffer): void;
  fail(failure: Partial<grpc.StatusObject>): void;
  isEnded(): boolean;
}) => { subscriber: Subscriber; stop?: () => void };

const SHUTDOWN_GRACE_MS = 2_000;

function status(code: grpc.status, details: string): Partial<grpc.StatusObject> {
  return { code, details };
}

/** The gRPC status of a failure before a stream starts. */
function statusOf(error: unknown, logger: Logger | undefined): Partial<grpc.StatusObject> {
  if (error instanceof ApiError) {
    if (error.status === 401) return status(grpc.status.UNAUTHENTICATED, error.message);
    if (error.code === 'RATE_LIMITED') return status(grpc.status.RESOURCE_EXHAUSTED, error.message);
    if (error.status === 404) return status(grpc.status.NOT_FOUND, error.message);
    if (error.status === 400) return status(grpc.status.INVALID_ARGUMENT, `${error.code}: ${error.message}`);
  }
  if (isDatabaseUnreachable(error)) return status(grpc.status.UNAVAILABLE, 'The database cannot be reached; retry shortly');
  logger?.error({ err: error }, 'gRPC stream failed');
  return status(grpc.status.INTERNAL, 'Internal error');
}

/** The service definition with responses that may be given already encoded (a Buffer is sent as is). */
function acceptingEncodedResponses(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      { ...method, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : method.responseSerialize(value)) },
    ]),
  );
}

const serializers = {
  price: marketDataService.StreamPriceUpdates!.responseSerialize,
  candle: marketDataService.StreamOHLC!.responseSerialize,
};

/** The event's protobuf bytes, made once for all calls. */
function encoded(event: StreamEvent): Buffer {
  event.encoded ??= serializers[event.name](eventMessage(event));
  return event.encoded;
}

export async function startGrpcServer(parameters: StartGrpcServerParameters): Promise<GrpcStreamServer> {
  const { streams, keys, logger } = parameters;
  const { hub, quota, settings } = streams;
  /** Every open call with what ends it with a status. */
  const failures = new FailedAuthentications(failedAuthPolicy(parameters.failuresPerMinute ?? 10));
  /** The key of `secret`, under the client address's failed-authentication budget for a secret not known valid. */
  const authenticate = async (call: StreamCall, secret: string) => {
    const address = peerAddress(call.getPeer());
    if (keys.knows(secret)) {
      const key = await keys.resolve(secret);
      if (!key) failures.fail(address);
      return key;
    }
    const checked = await failures.check(address, () => keys.resolve(secret), (key) => key === undefined, { shared: keys.lookingUp(secret) });
    if (checked.outcome === 'throttled') {
      rateLimitRefusals.inc({ transport: 'grpc', policy: 'failed-auth' });
      throw new ApiError('RATE_LIMITED', `Too many failed authentications from this address (${failures.policy.burst} a minute)`);
    }
    return checked.value;
  };
  const open = new Map<StreamCall, (failure: Partial<grpc.StatusObject>) => void>();

  /**
   * Authenticates `call`, validates its request, takes one of the key's streams and subscribes what `sink` makes of
   * the call (the frames it writes) to the fan-out, until the call ends.
   */
  const serve = async (call: StreamCall, requestOf: () => Promise<StreamRequest>, lastEventId: string | undefined, sink: Sink): Promise<void> => {
    let ended = false;
    let release: (() => void) | undefined;
    let unsubscribe: (() => void) | undefined;
    let stopSink: (() => void) | undefined;
    const finish = (): void => {
      if (ended) return;
      ended = true;
      open.delete(call);
      unsubscribe?.();
      stopSink?.();
      if (release) openStreams.dec({ transport: 'grpc' });
      release?.();
    };
    const fail = (failure: Partial<grpc.StatusObject>): void => {
      if (ended) return;
      finish();
      call.emit('error', failure);
    };
    open.set(call, fail);
    call.on('cancelled', finish);
    call.on('close', finish);
    call.on('finish', finish);
    try {
      const secret = call.metadata.get('x-api-key')[0];
      if (typeof secret !== 'string' || secret === '') {
        failedAuthentications.inc({ transport: 'grpc' });
        throw new ApiError('MISSING_API_KEY', 'Missing API key: send it as x-api-key metadata');
      }
      const key = await authenticate(call, secret);
      if (!key) {
        failedAuthentications.inc({ transport: 'grpc' });
        throw new ApiError('INVALID_API_KEY', 'Invalid API key');
      }
      const request = await requestOf();
      await hub.prepare(request);
      if (ended) return;
      release = quota.acquire(key.id);
      if (!release) {
        rateLimitRefusals.inc({ transport: 'grpc', policy: 'streams' });
        throw new ApiError('RATE_LIMITED', `Too many open streams for this API key (at most ${quota.perKey})`);
      }
      openStreams.inc({ transport: 'grpc' });
      const write = (frame: Buffer): void => {
        if (ended) return;
        if (call.writableLength >= settings.maxPendingMessages) {
          fail(status(grpc.status.RESOURCE_EXHAUSTED, `slow consumer: ${call.writableLength} messages unread (limit ${settings.maxPendingMessages})`));
          return;
        }
        call.write(frame);
      };
      const made = sink({ request, write, fail, isEnded: () => ended });
      stopSink = made.stop;
      unsubscribe = hub.subscribe(request, made.subscriber, lastEventId || undefined);
      if (ended) unsubscribe();
    } catch (error) {
      fail(statusOf(error, logger));
    }
  };

  /** MarketDataStream: each event its own frame. */
  const eachEvent: Sink = ({ write, fail }) => ({
    subscriber: { deliver: (event) => write(encoded(event)), end: (reason) => fail(status(grpc.status.UNAVAILABLE, reason)) },
  });

  /** BackendService prices and candles: the events of one drain window in one frame. */
  const batched: Sink = ({ write, fail }) => {
    let pending: StreamEvent[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = (): void => {
      timer = undefined;
      const frame = pending;
      pending = [];
      if (frame.length > 0) write(encodedFrame(frame));
    };
    return {
      subscriber: {
        deliver(event) {
          pending.push(event);
          timer ??= setTimeout(flush, settings.frameWindowMs);
        },
        end: (reason) => fail(status(grpc.status.UNAVAILABLE, reason)),
      },
      stop: () => clearTimeout(timer),
    };
  };

  /** The depth ladders of one call's symbols: every one on connect, then those whose price changed. */
  const depthLadders: Sink = ({ request, write, fail, isEnded }) => {
    const symbols = request.kind === 'prices' ? request.symbols : [];
    const dirty = new Set<string>(symbols);
    let timer: NodeJS.Timeout | undefined;
    let flushing = false;
    let lastFlushAt = 0;
    const schedule = (): void => {
      if (timer || flushing || dirty.size === 0 || isEnded()) return;
      timer = setTimeout(() => void flush(), Math.max(0, lastFlushAt + DEPTH_WINDOW_MS - Date.now()));
    };
    const flush = async (): Promise<void> => {
      timer = undefined;
      flushing = true;
      lastFlushAt = Date.now();
      const asked = [...dirty];
      dirty.clear();
      try {
        const updates = await Promise.all(asked.map((symbol) => depths.of(symbol)));
        write(encodedDepthFrame(updates.filter((update) => update !== undefined)));
      } catch (error) {
        fail(statusOf(error, logger));
      } finally {
        flushing = false;
        schedule();
      }
    };
    schedule();
    return {
      subscriber: {
        deliver(event) {
          if (event.name !== 'price') return;
          dirty.add(event.data.primaryMarket.symbol);
          schedule();
        },
        end: (reason) => fail(status(grpc.status.UNAVAILABLE, reason)),
      },
      stop: () => clearTimeout(timer),
    };
  };

  /** Ladders computed in the last DEPTH_WINDOW_MS for the latest price and session, shared by every call. */
  const depths = {
    computed: new Map<string, { price: string; at: number; depth: Promise<SoftQuoteDepthMessage | undefined> }>(),
    of(symbol: string): Promise<SoftQuoteDepthMessage | undefined> {
      const price = `${hub.latestPrice(symbol)?.timestamp ?? -1}|${sessionIntervalAt(hub.now()).start}`;
      const cached = this.computed.get(symbol);
      if (cached && cached.price === price && Date.now() - cached.at < DEPTH_WINDOW_MS) return cached.depth;
      const depth = (async () => {
        const asset = await hub.findAsset(symbol);
        return asset ? softQuoteDepth(parameters.db, asset, hub.now(), parameters.depth) : undefined;
      })();
      depth.catch(() => this.computed.delete(symbol));
      this.computed.set(symbol, { price, at: Date.now(), depth });
      return depth;
    },
  };

  const server = new grpc.Server();
  server.addService(acceptingEncodedResponses(marketDataService), {
    StreamPriceUpdates: (call: grpc.ServerWritableStream<StreamPriceUpdatesRequest, unknown>) =>
      void serve(call, () => priceStreamRequest(hub, call.request.symbols ?? []), call.request.lastEventId, eachEvent),
    StreamOHLC: (call: grpc.ServerWritableStream<StreamOHLCRequest, unknown>) =>
      void serve(call, () => candleStreamRequest(hub, [call.request.symbol ?? ''], call.request.interval), call.request.lastEventId, eachEvent),
  });
  /** The resume point: the request's `last_event_id`, or else metadata `last-event-id`. */
  const resumeFrom = (call: grpc.ServerWritableStream<SymbolsRequest, unknown>): string | undefined => {
    const fromMetadata = call.metadata.get('last-event-id')[0];
    return call.request.lastEventId || (typeof fromMetadata === 'string' ? fromMetadata : undefined);
  };
  server.addService(acceptingEncodedResponses(backendService), {
    HealthCheck: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<{ status: string }>) => callback(null, { status: 'SERVING' }),
    StreamPriceUpdates: (call: grpc.ServerWritableStream<SymbolsRequest, unknown>) =>
      void serve(call, () => priceStreamRequest(hub, call.request.symbols ?? []), resumeFrom(call), batched),
    StreamOHLC: (call: grpc.ServerWritableStream<OHLCRequest, unknown>) =>
      void serve(call, () => candleStreamRequest(hub, call.request.symbols ?? [], call.request.interval), resumeFrom(call), batched),
    StreamSoftQuoteDepth: (call: grpc.ServerWritableStream<SymbolsRequest, unknown>) =>
      void serve(call, () => priceStreamRequest(hub, call.request.symbols ?? []), undefined, depthLadders),
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${parameters.host}:${parameters.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(new Error(`gRPC server could not listen on ${parameters.host}:${parameters.port}`, { cause: error })) : resolve(bound),
    );
  });
  return {
    address: `${parameters.host}:${port}`,
    port,
    async stop() {
      for (const fail of [...open.values()]) fail(status(grpc.status.UNAVAILABLE, 'The server is shutting down'));
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, SHUTDOWN_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
    },
  };
}
