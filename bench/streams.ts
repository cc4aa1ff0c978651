/**
 * Live streams benchmark: one API process (a child, so the clients do not share its event loop: the API part of
 * start/api.ts, with the fan-out, the SSE routes and the gRPC server); 1,000 SSE subscribers and 1,000 gRPC streams of one symbol's prices in this
 * process. It prints the delivery latency from a tick handed to the pipeline to it received (p50/p99, per transport),
 * the API process's memory per subscriber, and the ticks per second the pipeline sustains while every subscriber
 * still receives every update. Then, those closed, the frames phase: subscribers of every asset's prices on the
 * reference's BackendService (one frame per drain window) beside as many on MarketDataStream (one update per frame),
 * every asset ticked at the same rate: updates per second received, p99 tick → received, frames and bytes per
 * update (the protobuf messages with gRPC's 5-byte prefix). Figures are printed, never asserted.
 *
 * The same file is the child: `BENCH_STREAMS_DATABASE_URL` set means "serve".
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { createPool } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { CATALOGUE } from '../domain/catalogue';
import { defaultConfig, quietLogger } from '../harness/settings';
import { MarketDataPipeline } from '../price-feed/pipeline';
import type { PriceTick } from '../price-feed/price-source';
import { startApi } from '../start/api';
import { BackendServiceClient, backendService } from '../streams/backend-proto';
import { MarketDataStreamClient, marketDataService } from '../streams/grpc-proto';

const SYMBOL = 'AAPLon';
const GRPC_CHANNELS = 10;

export interface StreamsBenchResult {
  sseSubscribers: number;
  grpcStreams: number;
  tickRateHz: number;
  /** From the tick handed to the pipeline (stored, then streamed), and from its commit (the fan-out alone). */
  latency: Record<'sse' | 'grpc', { p50Ms: number; p99Ms: number; fromCommitP50Ms: number; fromCommitP99Ms: number; received: number; expected: number }>;
  /** How long the pipeline took to store a batch (PostgreSQL transaction), p50. */
  storeP50Ms: number;
  /** How long handing one batch's prices to every subscriber took in the API process (the socket writes), p50/p99. */
  fanOut: { p50Ms: number; p99Ms: number };
  memory: { rssBaselineMb: number; ssePerSubscriberKb: number; grpcPerStreamKb: number; heapSsePerSubscriberKb: number; heapGrpcPerStreamKb: number };
  sustained: { ticksPerSecond: number; batchesPerSecond: number; ticksPerBatch: number; delivered: number; expected: number; p99Ms: number };
  /** Subscribers of every asset on each service, every asset ticked `tickRateHz` times a second. */
  frames: { subscribers: number; assets: number; batched: FramesFigures; perUpdate: FramesFigures };
}

export interface FramesFigures {
  updatesPerSecond: number;
  received: number;
  expected: number;
  p50Ms: number;
  p99Ms: number;
  updatesPerFrame: number;
  bytesPerUpdate: number;
}

type Command = { kind: 'memory' } | { kind: 'tick'; rateHz: number; seconds: number } | { kind: 'flood'; seconds: number };
type Reply = { kind: 'ready'; api: string; grpc: string } | { kind: 'memory'; rss: number; heapUsed: number } | { kind: 'ticked'; batches: number; ticks: number; ms: number; storeMs: number[]; fanOutMs: number[]; committedAt: [number, number][] };

// ---- the API process ----

async function serve(): Promise<void> {
  const databaseUrl = process.env.BENCH_STREAMS_DATABASE_URL!;
  const db = createPool(databaseUrl, 20);
  const api = await startApi({
    config: defaultConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1', RATE_LIMIT_PER_SECOND: 1_000_000, RATE_LIMIT_BURST: 1_000_000, AUTH_FAILURES_PER_MINUTE: 1_000_000, STREAMS_PER_KEY: 100_000 }),
    db,
    databaseUrl,
    logger: quietLogger(),
  });
  const { streams } = api;
  /** When each batch (by its tick timestamp) was committed. */
  const committedAt = new Map<number, number>();
  const fanOutMs: number[] = [];
  const pipeline = new MarketDataPipeline(db, {
    onStored: (stored) => {
      committedAt.set(stored.prices[0]?.observedAt ?? 0, Date.now());
      const started = performance.now();
      streams.hub.publishStored(stored);
      fanOutMs.push(performance.now() - started);
    },
  });

  let last = 0;
  let step = 0;
  const batch = (): PriceTick[] => {
    last = Math.max(Date.now(), last + 1);
    step += 1;
    return CATALOGUE.map((asset, index) => {
      const price = (100 + index + ((step * 7 + index) % 100) / 100).toFixed(2);
      return { symbol: asset.symbol, timestamp: last, tokenPrice: price, underlyingPrice: price, tokenVolume: '1', underlyingVolume: '1' };
    });
  };
  const send = (reply: Reply): void => void process.send!(reply);

  process.on('message', (command: Command) => {
    void (async () => {
      if (command.kind === 'memory') {
        (globalThis as { gc?: () => void }).gc?.();
        const { rss, heapUsed } = process.memoryUsage();
        send({ kind: 'memory', rss, heapUsed });
        return;
      }
      const started = Date.now();
      const until = started + command.seconds * 1000;
      let batches = 0;
      let ticks = 0;
      const storeMs: number[] = [];
      committedAt.clear();
      fanOutMs.length = 0;
      while (Date.now() < until) {
        const next = started + batches * (command.kind === 'tick' ? 1000 / command.rateHz : 0);
        if (next > Date.now()) await new Promise((resolve) => setTimeout(resolve, next - Date.now()));
        const ticksOfBatch = batch();
        const storing = Date.now();
        await pipeline.ingest(ticksOfBatch);
        storeMs.push(Date.now() - storing);
        batches += 1;
        ticks += ticksOfBatch.length;
      }
      await streams.hub.flushed();
      send({ kind: 'ticked', batches, ticks, ms: Date.now() - started, storeMs, fanOutMs, committedAt: [...committedAt] });
    })();
  });
  process.on('SIGTERM', () => {
    void api.stop().finally(() => process.exit(0));
  });
  send({ kind: 'ready', api: api.url, grpc: api.grpcAddress });
}

// ---- the clients ----

const percentile = (sorted: number[], p: number): number => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);

/** Receipt latencies (ms) of price updates, recorded while `recording`. */
class Recorder {
  recording = false;
  readonly latencies: number[] = [];
  /** Tick timestamp and receipt time of every update recorded. */
  readonly receipts: [number, number][] = [];
  received = 0;
  record(timestamp: number): void {
    this.received += 1;
    if (!this.recording) return;
    const now = Date.now();
    this.latencies.push(now - timestamp);
    this.receipts.push([timestamp, now]);
  }
  reset(): void {
    this.latencies.length = 0;
    this.receipts.length = 0;
    this.received = 0;
  }
}

async function openSse(url: string, key: string, agent: http.Agent, recorder: Recorder): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    let first = true;
    let buffer = '';
    const request = http.get(url, { agent, headers: { 'x-api-key': key, accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`SSE answered ${response.statusCode}`));
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const match = /"timestamp":(\d+)\}$/m.exec(frame);
          if (!match) continue;
          if (first) {
            first = false;
            resolve(request);
          } else recorder.record(Number(match[1]));
        }
      });
    });
    request.on('error', reject);
  });
}

function openGrpc(client: grpc.Client, key: string, recorder: Recorder): Promise<grpc.ClientReadableStream<{ timestamp: number }>> {
  return new Promise((resolve, reject) => {
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    const start = (client as unknown as { StreamPriceUpdates(request: object, metadata: grpc.Metadata): grpc.ClientReadableStream<{ timestamp: number }> }).StreamPriceUpdates;
    const call = start.call(client, { symbols: [SYMBOL] }, metadata);
    let first = true;
    call.on('data', (message: { timestamp: number }) => {
      if (first) {
        first = false;
        resolve(call);
      } else recorder.record(message.timestamp);
    });
    call.on('error', (error: grpc.ServiceError) => {
      if (first) reject(error);
    });
  });
}

/** What the subscribers of one service received in the frames phase. */
class FramesRecorder {
  recording = false;
  readonly latencies: number[] = [];
  updates = 0;
  frames = 0;
  bytes = 0;
  record(timestampsMs: number[], bytes: number): void {
    if (!this.recording) return;
    const now = Date.now();
    this.frames += 1;
    this.bytes += bytes + 5;
    this.updates += timestampsMs.length;
    for (const timestamp of timestampsMs) this.latencies.push(now - timestamp);
  }
}

/**
 * A stream of every asset's prices on `service`, counting each frame's bytes as received; resolves once the latest
 * price of every asset came (one frame on BackendService, one frame each on MarketDataStream), and records the frames
 * after them.
 */
function openFrames(client: grpc.Client, service: grpc.ServiceDefinition, key: string, recorder: FramesRecorder, timestampsOf: (message: unknown) => number[]): Promise<grpc.ClientReadableStream<unknown>> {
  return new Promise((resolve, reject) => {
    const method = service.StreamPriceUpdates!;
    const metadata = new grpc.Metadata();
    metadata.set('x-api-key', key);
    let size = 0;
    const call = client.makeServerStreamRequest(
      method.path,
      method.requestSerialize,
      (bytes: Buffer) => {
        size = bytes.length;
        return method.responseDeserialize(bytes);
      },
      { symbols: [] },
      metadata,
    );
    let initial = CATALOGUE.length;
    call.on('data', (message: unknown) => {
      const timestamps = timestampsOf(message);
      if (initial <= 0) {
        recorder.record(timestamps, size);
        return;
      }
      initial -= timestamps.length;
      if (initial <= 0) resolve(call);
    });
    call.on('error', (error: grpc.ServiceError) => {
      if (initial > 0) reject(error);
    });
  });
}

async function inBatches<T>(count: number, size: number, open: (index: number) => Promise<T>): Promise<T[]> {
  const opened: T[] = [];
  for (let from = 0; from < count; from += size) {
    opened.push(...(await Promise.all(Array.from({ length: Math.min(size, count - from) }, (_, offset) => open(from + offset)))));
  }
  return opened;
}

/** Runs the benchmark against a prepared database (bench/api.ts prepareBenchDatabase). */
export async function benchStreams(databaseUrl: string, options: { subscribers?: number; seconds?: number; tickRateHz?: number; frameSubscribers?: number } = {}): Promise<StreamsBenchResult> {
  const subscribers = options.subscribers ?? 1_000;
  const frameSubscribers = options.frameSubscribers ?? 100;
  const seconds = options.seconds ?? 10;
  const tickRateHz = options.tickRateHz ?? 10;
  const db = createPool(databaseUrl, 2);
  const { secret } = await createApiKey(db, { name: 'streams bench', scope: 'read', rateLimitPerSecond: 1_000_000, rateLimitBurst: 1_000_000 });
  await db.end();

  const child = fork(__filename, [], {
    env: { ...process.env, BENCH_STREAMS_DATABASE_URL: databaseUrl },
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const replies: Reply[] = [];
  const waiters: ((reply: Reply) => void)[] = [];
  child.on('message', (reply: Reply) => {
    const waiter = waiters.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`streams bench server exited with ${code}`))));
  exited.catch(() => undefined);
  const reply = <K extends Reply['kind']>(kind: K): Promise<Extract<Reply, { kind: K }>> =>
    Promise.race([
      new Promise<Reply>((resolve) => {
        const queued = replies.shift();
        if (queued) resolve(queued);
        else waiters.push(resolve);
      }).then((received) => {
        if (received.kind !== kind) throw new Error(`expected ${kind} from the bench server, got ${received.kind}`);
        return received as Extract<Reply, { kind: K }>;
      }),
      exited,
    ]);
  const command = (sent: Command): void => void child.send(sent);

  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const channels: grpc.Client[] = [];
  const sseRequests: http.ClientRequest[] = [];
  const grpcCalls: grpc.ClientReadableStream<unknown>[] = [];
  try {
    const ready = await reply('ready');
    for (let index = 0; index < GRPC_CHANNELS; index++) {
      channels.push(new MarketDataStreamClient(ready.grpc, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
    }
    const sse = new Recorder();
    const grpcRecorder = new Recorder();

    command({ kind: 'memory' });
    const baseline = await reply('memory');
    sseRequests.push(...(await inBatches(subscribers, 100, () => openSse(`${ready.api}/v1/stream/prices?symbols=${SYMBOL}`, secret, agent, sse))));
    command({ kind: 'memory' });
    const afterSse = await reply('memory');
    grpcCalls.push(...(await inBatches(subscribers, 100, (index) => openGrpc(channels[index % GRPC_CHANNELS]!, secret, grpcRecorder))));
    command({ kind: 'memory' });
    const afterGrpc = await reply('memory');

    // Latency at a steady rate: every batch ticks every asset once.
    sse.reset();
    grpcRecorder.reset();
    sse.recording = grpcRecorder.recording = true;
    command({ kind: 'tick', rateHz: tickRateHz, seconds });
    const steady = await reply('ticked');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    sse.recording = grpcRecorder.recording = false;
    const committed = new Map(steady.committedAt);
    const summary = (recorder: Recorder) => {
      const sorted = [...recorder.latencies].sort((a, b) => a - b);
      const fromCommit = recorder.receipts.map(([timestamp, at]) => at - (committed.get(timestamp) ?? timestamp)).sort((a, b) => a - b);
      return {
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        fromCommitP50Ms: percentile(fromCommit, 50),
        fromCommitP99Ms: percentile(fromCommit, 99),
        received: recorder.received,
        expected: steady.batches * subscribers,
      };
    };
    const latency = { sse: summary(sse), grpc: summary(grpcRecorder) };

    // Throughput: batches back to back, as fast as the pipeline stores them.
    sse.reset();
    grpcRecorder.reset();
    sse.recording = grpcRecorder.recording = true;
    command({ kind: 'flood', seconds });
    const flood = await reply('ticked');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    sse.recording = grpcRecorder.recording = false;
    const all = [...sse.latencies, ...grpcRecorder.latencies].sort((a, b) => a - b);

    // Batched frames beside one update per frame: the subscribers above closed, as many of every asset on each service.
    for (const request of sseRequests.splice(0)) request.destroy();
    for (const call of grpcCalls.splice(0)) call.cancel();
    const batched = new FramesRecorder();
    const perUpdate = new FramesRecorder();
    const frameChannels = Array.from({ length: GRPC_CHANNELS }, () => new BackendServiceClient(ready.grpc, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
    channels.push(...frameChannels);
    grpcCalls.push(
      ...(await inBatches(frameSubscribers, 50, (index) =>
        openFrames(frameChannels[index % GRPC_CHANNELS]!, backendService, secret, batched, (message) =>
          (message as { updates: { timestamp: string }[] }).updates.map((update) => Number(BigInt(update.timestamp) / 1_000_000n)),
        ),
      )),
      ...(await inBatches(frameSubscribers, 50, (index) => openFrames(channels[index % GRPC_CHANNELS]!, marketDataService, secret, perUpdate, (message) => [(message as { timestamp: number }).timestamp]))),
    );
    batched.recording = perUpdate.recording = true;
    command({ kind: 'tick', rateHz: tickRateHz, seconds });
    const framesRun = await reply('ticked');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    batched.recording = perUpdate.recording = false;
    const framesOf = (recorder: FramesRecorder): FramesFigures => {
      const sorted = [...recorder.latencies].sort((a, b) => a - b);
      return {
        updatesPerSecond: Math.round(recorder.updates / (framesRun.ms / 1000)),
        received: recorder.updates,
        expected: framesRun.ticks * frameSubscribers,
        p50Ms: percentile(sorted, 50),
        p99Ms: percentile(sorted, 99),
        updatesPerFrame: Math.round((recorder.updates / Math.max(1, recorder.frames)) * 10) / 10,
        bytesPerUpdate: Math.round((recorder.bytes / Math.max(1, recorder.updates)) * 10) / 10,
      };
    };

    const kb = (bytes: number) => Math.round(bytes / subscribers / 102.4) / 10;
    return {
      sseSubscribers: subscribers,
      grpcStreams: subscribers,
      tickRateHz,
      latency,
      storeP50Ms: percentile([...steady.storeMs].sort((a, b) => a - b), 50),
      fanOut: {
        p50Ms: Math.round(percentile([...steady.fanOutMs].sort((a, b) => a - b), 50) * 10) / 10,
        p99Ms: Math.round(percentile([...steady.fanOutMs].sort((a, b) => a - b), 99) * 10) / 10,
      },
      memory: {
        rssBaselineMb: Math.round(baseline.rss / 1024 / 1024),
        ssePerSubscriberKb: kb(afterSse.rss - baseline.rss),
        grpcPerStreamKb: kb(afterGrpc.rss - afterSse.rss),
        heapSsePerSubscriberKb: kb(afterSse.heapUsed - baseline.heapUsed),
        heapGrpcPerStreamKb: kb(afterGrpc.heapUsed - afterSse.heapUsed),
      },
      sustained: {
        ticksPerSecond: Math.round(flood.ticks / (flood.ms / 1000)),
        batchesPerSecond: Math.round((flood.batches / (flood.ms / 1000)) * 10) / 10,
        ticksPerBatch: Math.round(flood.ticks / Math.max(1, flood.batches)),
        delivered: sse.received + grpcRecorder.received,
        expected: flood.batches * subscribers * 2,
        p99Ms: percentile(all, 99),
      },
      frames: { subscribers: frameSubscribers, assets: CATALOGUE.length, batched: framesOf(batched), perUpdate: framesOf(perUpdate) },
    };
  } finally {
    for (const request of sseRequests) request.destroy();
    for (const call of grpcCalls) call.cancel();
    for (const channel of channels) channel.close();
    agent.destroy();
    child.kill('SIGTERM');
  }
}

export function formatStreams(result: StreamsBenchResult): string[] {
  const { latency, memory, sustained } = result;
  const frames = (name: string, figures: FramesFigures) =>
    `    ${name}: ${figures.updatesPerSecond} updates/s received (${figures.received} of ${figures.expected}), tick → received p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms; ${figures.updatesPerFrame} updates a frame, ${figures.bytesPerUpdate} bytes an update`;
  const line = (name: string, figures: StreamsBenchResult['latency']['sse']) =>
    `  ${name}: p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (goal p99 ≤ 100 ms); from the commit p50 ${figures.fromCommitP50Ms} ms, p99 ${figures.fromCommitP99Ms} ms; ${figures.received} of ${figures.expected} updates received`;
  return [
    `Live streams: ${result.sseSubscribers} SSE subscribers and ${result.grpcStreams} gRPC streams of ${SYMBOL} on one API process, every asset ticked ${result.tickRateHz} times a second`,
    line('SSE delivery latency (tick handed to the pipeline → received)', latency.sse),
    line('gRPC delivery latency', latency.grpc),
    `  storing one batch (the pipeline's PostgreSQL transaction): p50 ${result.storeP50Ms} ms; handing its update to all ${result.sseSubscribers + result.grpcStreams} subscribers (the socket writes): p50 ${result.fanOut.p50Ms} ms, p99 ${result.fanOut.p99Ms} ms`,
    `  API process memory: ${memory.rssBaselineMb} MB RSS before; per SSE subscriber ${memory.ssePerSubscriberKb} KB RSS (${memory.heapSsePerSubscriberKb} KB heap), per gRPC stream ${memory.grpcPerStreamKb} KB RSS (${memory.heapGrpcPerStreamKb} KB heap)`,
    `  sustained: ${sustained.ticksPerSecond} ticks/s (${sustained.batchesPerSecond} batches/s of ${sustained.ticksPerBatch} ticks, stored and streamed) with all ${result.sseSubscribers + result.grpcStreams} subscribers; ${sustained.delivered} of ${sustained.expected} updates delivered, p99 ${sustained.p99Ms} ms`,
    `  frames: ${result.frames.subscribers} gRPC subscribers of all ${result.frames.assets} assets on each service, every asset ticked ${result.tickRateHz} times a second, the others closed`,
    frames('BackendService (batched, one frame per drain window)', result.frames.batched),
    frames('MarketDataStream (one update per frame)', result.frames.perUpdate),
  ];
}

if (process.env.BENCH_STREAMS_DATABASE_URL) {
  serve().catch((error: unknown) => {
    process.stderr.write(`streams bench server failed: ${String(error)}\n`);
    process.exit(1);
  });
}
