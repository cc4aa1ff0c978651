/**
 * The API part (start/api.ts: the app, the fan-out, the gRPC server) and a market-data pipeline feeding it, on a
 * fresh clone of the test database, listening on free ports, with a pinned clock; and clients that read Server-Sent
 * Events and gRPC streams as a user would. Everything a test starts is stopped by `close()`.
 */
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import type { App } from '../../api/app';
import { createApiKey } from '../../db/queries/api-keys';
import { sessionAt } from '../../domain/calendar';
import { quietLogger, testConfig } from '../../harness/settings';
import { MarketDataPipeline, type StoredMarketData } from '../../price-feed/pipeline';
import type { PriceTick } from '../../price-feed/price-source';
import { startApi, type RunningApi } from '../../start/api';
import { Parts } from '../../start/parts';
import { MarketDataStreamClient } from '../../streams/grpc-proto';
import type { MarketStreams, StreamSettings } from '../../streams/market-streams';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

export { TEST_BASE_URL } from '../../harness/settings';
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The start of a minute in a regular session at least a day after `now` (so its ticks are the newest prices). */
export function regularSessionMinute(now: number): number {
  for (let day = 1; day < 30; day++) {
    const t = Math.floor((now + day * DAY_MS) / DAY_MS) * DAY_MS + 16 * 3_600_000;
    if (sessionAt(t) === 'regular') return t;
  }
  throw new Error('no regular session in the next 30 days');
}

export interface StreamStack extends TestDb {
  app: App;
  streams: MarketStreams;
  pipeline: MarketDataPipeline;
  api: RunningApi;
  grpc: { address: string };
  keys: { read: string };
  /** The pinned clock (epoch ms). */
  now(): number;
  setNow(now: number): void;
  /** Stores ticks through the pipeline and waits until the fan-out has published them. */
  ingest(ticks: PriceTick[]): Promise<void>;
  /** A REST GET with the read key. */
  get(path: string): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export interface StreamStackOptions {
  settings?: Partial<StreamSettings>;
  closeGraceMs?: number;
  /** Failed authentications per minute and client address on gRPC (default: high enough not to matter). */
  authFailuresPerMinute?: number;
  /** The replay window of `Last-Event-ID` (default: the hub's). */
  retainMs?: number;
  /** The pinned clock's first value. */
  start: number;
  /** Another stack's database (a second API process on the same PostgreSQL); it stays to its owner to drop. */
  database?: TestDb;
}

export async function startStreamStack(options: StreamStackOptions): Promise<StreamStack> {
  const logger = quietLogger();
  const parts = new Parts(logger);
  const close = () => parts.stopped();
  try {
    const database = options.database ?? (await cloneTemplateDatabase());
    if (!options.database) parts.add({ name: 'database', stop: () => database.drop() });
    let pinned = options.start;
    const clock = (): number => pinned;
    // The pipeline hands each batch to the API part's live streams (started next).
    let toLiveStreams: (stored: StoredMarketData) => void = () => undefined;
    const pipeline = new MarketDataPipeline(database.db, { onStored: (stored) => toLiveStreams(stored) });
    const api = await startApi({
      config: testConfig(options.authFailuresPerMinute === undefined ? {} : { AUTH_FAILURES_PER_MINUTE: options.authFailuresPerMinute }),
      db: database.db,
      databaseUrl: database.url,
      logger,
      clock,
      pipeline,
      streams: { closeGraceMs: options.closeGraceMs ?? 1_000, retainMs: options.retainMs, sweepMs: 20, settings: options.settings },
    });
    parts.add(api);
    toLiveStreams = api.onStored;
    const { app, streams } = api;
    const read = (await createApiKey(database.db, { name: 'streams test', scope: 'read' })).secret;
    return {
      ...database,
      app,
      streams,
      pipeline,
      api,
      grpc: { address: api.grpcAddress },
      keys: { read },
      now: clock,
      setNow(now) {
        pinned = now;
      },
      async ingest(ticks) {
        await pipeline.ingest(ticks);
        await streams.hub.flushed();
      },
      async get(path) {
        app.services.forget('prices');
        app.services.forget('candles');
        const response = await fetch(`${api.url}${path}`, { headers: { 'x-api-key': read } });
        return { status: response.status, body: await response.json() };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface SseMessage {
  id?: string;
  event: string;
  data: unknown;
}

/** Waits for the first item at or after `from` that matches, polling the list a client fills. */
async function waitFor<T>(items: T[], from: number, match: (item: T) => boolean, what: string, timeoutMs: number, closed: () => boolean): Promise<{ item: T; index: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (let index = from; index < items.length; index++) if (match(items[index]!)) return { item: items[index]!, index };
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(items.slice(from)).slice(0, 2000)}`);
    if (closed()) throw new Error(`stream ended while waiting for ${what}; got ${JSON.stringify(items.slice(from)).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** An SSE client: `messages` as they arrive, `next` to take them in order. A refusal leaves `status` and `body`. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  status = 0;
  body: unknown;
  ended = false;
  private consumed = 0;
  private buffer = '';
  private request: http.ClientRequest | undefined;
  response: http.IncomingMessage | undefined;

  static async open(url: string, headers: Record<string, string>): Promise<SseClient> {
    const client = new SseClient();
    await new Promise<void>((resolve, reject) => {
      client.request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        client.response = response;
        client.status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        if (client.status !== 200) {
          let text = '';
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => {
            client.body = JSON.parse(text);
            client.ended = true;
            resolve();
          });
          return;
        }
        response.on('data', (chunk: string) => client.receive(chunk));
        response.on('close', () => (client.ended = true));
        resolve();
      });
      client.request.on('error', (error) => {
        client.ended = true;
        reject(error);
      });
    });
    return client;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const message: { id?: string; event?: string; data?: string } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
        else if (line.startsWith('id: ')) message.id = line.slice(4);
        else if (line.startsWith('event: ')) message.event = line.slice(7);
        else if (line.startsWith('data: ')) message.data = line.slice(6);
      }
      if (message.data !== undefined) this.messages.push({ id: message.id, event: message.event ?? 'message', data: JSON.parse(message.data) });
    }
  }

  /** The next message not taken yet that matches (default: any). */
  async next(match: (message: SseMessage) => boolean = () => true, timeoutMs = 5_000): Promise<SseMessage> {
    const { item, index } = await waitFor(this.messages, this.consumed, match, 'an SSE message', timeoutMs, () => this.ended);
    this.consumed = index + 1;
    return item;
  }

  /** Messages not taken yet. */
  pending(): SseMessage[] {
    return this.messages.slice(this.consumed);
  }

  /** The id of the newest message received. */
  lastId(): string | undefined {
    return this.messages.at(-1)?.id;
  }

  close(): void {
    this.request?.destroy();
    this.ended = true;
  }
}

/** A gRPC server-streaming call as a client sees it: messages, then a status. */
export class GrpcStream<T> {
  readonly messages: T[] = [];
  status: grpc.StatusObject | undefined;
  private consumed = 0;
  readonly call: grpc.ClientReadableStream<T>;
  private readonly client: grpc.Client;

  /** `Client`: a client constructor of the service (default: MarketDataStream); `extra`: more call metadata. */
  constructor(address: string, method: string, request: object, key: string | null, Client: grpc.ServiceClientConstructor = MarketDataStreamClient, extra: Record<string, string> = {}) {
    this.client = new Client(address, grpc.credentials.createInsecure());
    const metadata = new grpc.Metadata();
    if (key !== null) metadata.set('x-api-key', key);
    for (const [name, value] of Object.entries(extra)) metadata.set(name, value);
    const start = (this.client as unknown as Record<string, (request: object, metadata: grpc.Metadata) => grpc.ClientReadableStream<T>>)[method]!;
    this.call = start.call(this.client, request, metadata);
    this.call.on('data', (message: T) => this.messages.push(message));
    this.call.on('error', (error: grpc.ServiceError) => (this.status ??= { code: error.code, details: error.details, metadata: error.metadata }));
    this.call.on('status', (status: grpc.StatusObject) => (this.status ??= status));
  }

  async next(match: (message: T) => boolean = () => true, timeoutMs = 5_000): Promise<T> {
    const { item, index } = await waitFor(this.messages, this.consumed, match, 'a gRPC message', timeoutMs, () => this.status !== undefined);
    this.consumed = index + 1;
    return item;
  }

  /** The status the call ended with. */
  async ended(timeoutMs = 5_000): Promise<grpc.StatusObject> {
    const deadline = Date.now() + timeoutMs;
    while (!this.status) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the gRPC status');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return this.status;
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

export { MINUTE_MS };
