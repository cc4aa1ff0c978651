/**
 * The gRPC server of the live streams on its own port (GRPC_PORT): `StreamPriceUpdates` and `StreamOHLC` over the
 * same fan-out as Server-Sent Events. Calls authenticate with the API key as metadata `x-api-key` (missing or invalid:
 * UNAUTHENTICATED; an address past its failed authentications a minute, as on HTTP: RESOURCE_EXHAUSTED before the
 * lookup), count against the key's allowance of open streams (RESOURCE_EXHAUSTED), and are validated like
 * the SSE routes. Each event is encoded once and the bytes reused for every call; a call with more than
 * `maxPendingMessages` unsent is ended with RESOURCE_EXHAUSTED and a reason.
 */
import * as grpc from '@grpc/grpc-js';
import type { ApiKeyResolver } from '../access/api-keys';
import { failedAuthPolicy, FailedAuthentications } from '../access/failed-auth';
import type { Logger } from '../config/logger';
import { isDatabaseUnreachable } from '../db/pool';
import { failedAuthentications, openStreams, rateLimitRefusals } from '../metrics/metrics';
import { ApiError } from '../domain/errors';
import type { StreamEvent } from './events';
import { eventMessage, marketDataService, type StreamOHLCRequest, type StreamPriceUpdatesRequest } from './grpc-proto';
import type { StreamRequest } from './hub';
import type { Subscriber } from './subscriptions';
import type { MarketStreams } from './market-streams';
import { candleStreamRequest, priceStreamRequest } from './requests';

export interface GrpcStreamServer {
  /** `host:port` clients dial. */
  address: string;
  port: number;
  /** Ends every open call (UNAVAILABLE) and stops listening. */
  stop(): Promise<void>;
}

export interface StartGrpcServerParameters {
  streams: MarketStreams;
  keys: ApiKeyResolver;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Failed authentications a client address may make per minute (AUTH_FAILURES_PER_MINUTE; default 10). */
  failuresPerMinute?: number;
  logger?: Logger;
}

/** The client's IP address from a gRPC peer (`ipv4:127.0.0.1:5000`, `[::1]:5000`). */
function peerAddress(peer: string): string {
  return peer.replace(/^ipv[46]:/, '').replace(/:\d+$/, '');
}

type StreamCall = grpc.ServerWritableStream<unknown, unknown>;

const SHUTDOWN_GRACE_MS = 2_000;

function status(code: grpc.status, details: string): Partial<grpc.StatusObject> {
  return { code, details };
}

/** The gRPC status of a failure before a stream starts. */
function statusOf(error: unknown, logger: Logger | undefined): Partial<grpc.StatusObject> {
  if (error instanceof ApiError) {
    if (error.code === 'MISSING_API_KEY') return status(grpc.status.UNAUTHENTICATED, error.message);
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

  const serve = async (call: StreamCall, requestOf: () => Promise<StreamRequest>, lastEventId: string | undefined): Promise<void> => {
    let ended = false;
    let release: (() => void) | undefined;
    let unsubscribe: (() => void) | undefined;
    const finish = (): void => {
      if (ended) return;
      ended = true;
      open.delete(call);
      unsubscribe?.();
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
        throw new ApiError('MISSING_API_KEY', 'Invalid API key');
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
      const subscriber: Subscriber = {
        deliver(event) {
          if (ended) return;
          if (call.writableLength >= settings.maxPendingMessages) {
            fail(status(grpc.status.RESOURCE_EXHAUSTED, `slow consumer: ${call.writableLength} messages unread (limit ${settings.maxPendingMessages})`));
            return;
          }
          call.write(encoded(event));
        },
        end(reason) {
          fail(status(grpc.status.UNAVAILABLE, reason));
        },
      };
      unsubscribe = hub.subscribe(request, subscriber, lastEventId || undefined);
      if (ended) unsubscribe();
    } catch (error) {
      fail(statusOf(error, logger));
    }
  };

  const server = new grpc.Server();
  server.addService(acceptingEncodedResponses(marketDataService), {
    StreamPriceUpdates: (call: grpc.ServerWritableStream<StreamPriceUpdatesRequest, unknown>) =>
      void serve(call, () => priceStreamRequest(hub, call.request.symbols ?? []), call.request.lastEventId),
    StreamOHLC: (call: grpc.ServerWritableStream<StreamOHLCRequest, unknown>) =>
      void serve(call, () => candleStreamRequest(hub, call.request.symbol ?? '', call.request.interval), call.request.lastEventId),
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
