/**
 * The reference issuer's streaming interface, called by clients built from its PUBLISHED schema — the newer version
 * (fixtures/grpcapi.newer-mirror.proto) and the docs page's older three-call one (fixtures/grpcapi.proto), both copied
 * as published, field names kept as written — against the real server, pipeline and PostgreSQL: every call's frames
 * decode to the reference's fields and types, updates come batched, and refusals carry the reference's status codes.
 * Our additions (resume, 5/15-minute candles) through our own proto.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { nextInstant } from '../../harness/instants';
import { BackendServiceClient } from '../../streams/backend-proto';
import { GrpcStream, MINUTE_MS, regularSessionMinute, startStreamStack, type StreamStack } from './support';

/** The service of a published version of the schema, as a client generated from it has it. */
function publishedService(file: string): grpc.ServiceClientConstructor {
  const published = protoLoader.loadSync(path.join(__dirname, 'fixtures', file), { keepCase: true, longs: String, defaults: true });
  return (grpc.loadPackageDefinition(published) as unknown as { ondo: { gm: { backend: { v1: { BackendService: grpc.ServiceClientConstructor } } } } }).ondo.gm.backend.v1.BackendService;
}
const ReferenceClient = publishedService('grpcapi.newer-mirror.proto');
/** The older version the reference's docs page shows (fixtures/grpcapi.proto): the same service without StreamSoftQuoteDepth. */
const DocsPageClient = publishedService('grpcapi.proto');

interface PriceUpdate {
  ticker: string;
  symbol: string;
  stock_price: string;
  token_price: string;
  timestamp: string;
}
interface Ohlc {
  primary_market: { symbol: string; open: string; high: string; low: string; close: string };
  underlying_market: { ticker: string; open: string; high: string; low: string; close: string };
  is_closed: boolean;
  timestamp: string;
}
interface Level {
  price: string;
  quantity: string;
}
interface Depth {
  symbol: string;
  ticker: string;
  session_type: string;
  error: string;
  timestamp: string;
  bids: Level[];
  asks: Level[];
}
interface Frame<T> {
  updates: T[];
}

const START = regularSessionMinute(Date.now());
let stack: StreamStack;
const calls: { close(): void }[] = [];
let tickTime = START + 10_000;
const ns = (ms: number): string => (BigInt(ms) * 1_000_000n).toString();
const DECIMAL = /^\d+(\.\d+)?$/;

beforeAll(async () => {
  stack = await startStreamStack({ start: tickTime, settings: { streamsPerKey: 6, frameWindowMs: 20 } });
});
afterEach(() => {
  for (const call of calls.splice(0)) call.close();
});
afterAll(() => stack.close());

function reference<T>(method: string, symbols: string[], key: string | null = stack.keys.read): GrpcStream<Frame<T>> {
  const call = new GrpcStream<Frame<T>>(stack.grpc.address, method, { symbols }, key, ReferenceClient);
  calls.push(call);
  return call;
}

test('HealthCheck answers SERVING without a key', async () => {
  const client = new ReferenceClient(stack.grpc.address, grpc.credentials.createInsecure());
  try {
    const answer = await new Promise<unknown>((resolve, reject) =>
      (client as unknown as { HealthCheck(request: object, callback: (error: Error | null, answer: unknown) => void): void }).HealthCheck({}, (error, value) =>
        error ? reject(error) : resolve(value),
      ),
    );
    expect(answer).toEqual({ status: 'SERVING' });
  } finally {
    client.close();
  }
});

test('a client of the docs page’s older version of the schema (three calls) decodes the same frames', async () => {
  const newer = reference<PriceUpdate>('StreamPriceUpdates', ['AAPLon', 'SPYon']);
  const older = new GrpcStream<Frame<PriceUpdate>>(stack.grpc.address, 'StreamPriceUpdates', { symbols: ['AAPLon', 'SPYon'] }, stack.keys.read, DocsPageClient);
  calls.push(older);
  const [olderFrame, newerFrame] = await Promise.all([older.next(), newer.next()]);
  expect(olderFrame.updates.length).toBe(2);
  expect(olderFrame).toEqual(newerFrame);
  expect('StreamSoftQuoteDepth' in DocsPageClient.service).toBe(false);
});

describe('status codes', () => {
  const methods = ['StreamPriceUpdates', 'StreamOHLC', 'StreamSoftQuoteDepth'];
  test.each(methods)('%s: no key UNAUTHENTICATED, an unknown key UNAUTHENTICATED, an unknown symbol NOT_FOUND, a malformed one INVALID_ARGUMENT', async (method) => {
    const codes = [];
    for (const [symbols, key] of [[['AAPLon'], null], [['AAPLon'], 'not-a-key'], [['AAPLon', 'ZZZZon'], stack.keys.read], [['AAPL'], stack.keys.read]] as const) {
      const call = reference(method, [...symbols], key);
      codes.push((await call.ended()).code);
      expect(call.messages).toEqual([]);
    }
    expect(codes).toEqual([grpc.status.UNAUTHENTICATED, grpc.status.UNAUTHENTICATED, grpc.status.NOT_FOUND, grpc.status.INVALID_ARGUMENT]);
  });

  test('a key past its allowance of open streams gets RESOURCE_EXHAUSTED', async () => {
    const open = [0, 1, 2, 3, 4, 5].map((index) => reference(index % 2 === 0 ? 'StreamPriceUpdates' : 'StreamSoftQuoteDepth', ['AAPLon']));
    await Promise.all(open.map((call) => call.next()));
    const refused = reference('StreamPriceUpdates', ['AAPLon']);
    expect((await refused.ended()).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });
});

describe('StreamPriceUpdates', () => {
  test('the flat PriceUpdate: the latest prices first in one frame, then the changes of one batch in one frame', async () => {
    const call = reference<PriceUpdate>('StreamPriceUpdates', ['TSLAon', 'AAPLon']);
    const first = await call.next();
    expect(first.updates.map((update) => update.symbol).sort()).toEqual(['AAPLon', 'TSLAon']);
    for (const update of first.updates) {
      const rest = (await stack.get(`/v1/assets/${update.symbol}/prices/latest`)).body as { primaryMarket: { symbol: string; price: string }; underlyingMarket: { ticker: string; price: string }; timestamp: number };
      expect(update).toEqual({ ticker: rest.underlyingMarket.ticker, symbol: rest.primaryMarket.symbol, stock_price: rest.underlyingMarket.price, token_price: rest.primaryMarket.price, timestamp: ns(rest.timestamp) });
    }

    tickTime += 1_000;
    await stack.ingest([
      { symbol: 'TSLAon', timestamp: tickTime, tokenPrice: '350.75', underlyingPrice: '350.5' },
      { symbol: 'AAPLon', timestamp: tickTime, tokenPrice: '230.125', underlyingPrice: '230' },
      { symbol: 'SPYon', timestamp: tickTime, tokenPrice: '600', underlyingPrice: '600' },
    ]);
    const changes = await call.next();
    expect(changes.updates.sort((a, b) => a.symbol.localeCompare(b.symbol))).toEqual([
      { ticker: 'AAPL', symbol: 'AAPLon', stock_price: '230', token_price: '230.125', timestamp: ns(tickTime) },
      { ticker: 'TSLA', symbol: 'TSLAon', stock_price: '350.5', token_price: '350.75', timestamp: ns(tickTime) },
    ]);
  });

  test('no symbols: every asset', async () => {
    const call = reference<PriceUpdate>('StreamPriceUpdates', []);
    const first = await call.next();
    const latest = (await stack.get('/v1/assets/all/prices/latest')).body as { primaryMarket: { symbol: string } }[];
    expect(first.updates.map((update) => update.symbol).sort()).toEqual(latest.map((item) => item.primaryMarket.symbol).sort());
  });
});

describe('StreamOHLC', () => {
  test('minute buckets: primary and underlying markets, is_closed, the bucket start in nanoseconds', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 2_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'METAon', timestamp: tickTime, tokenPrice: '700', underlyingPrice: '699.5' }]);
    const call = reference<Ohlc>('StreamOHLC', ['METAon']);
    const open = { primary_market: { symbol: 'METAon', open: '700', high: '700', low: '700', close: '700' }, underlying_market: { ticker: 'META', open: '699.5', high: '699.5', low: '699.5', close: '699.5' }, timestamp: ns(bucket) };
    expect((await call.next()).updates).toEqual([{ ...open, is_closed: false }]);

    tickTime += 20_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'METAon', timestamp: tickTime, tokenPrice: '710.25', underlyingPrice: '709' }]);
    const moved = {
      primary_market: { ...open.primary_market, high: '710.25', close: '710.25' },
      underlying_market: { ...open.underlying_market, high: '709', close: '709' },
      timestamp: ns(bucket),
    };
    expect((await call.next()).updates).toEqual([{ ...moved, is_closed: false }]);

    stack.setNow(bucket + MINUTE_MS + 1_000);
    expect((await call.next()).updates).toEqual([{ ...moved, is_closed: true }]);
  });
});

describe('StreamSoftQuoteDepth', () => {
  test('a ladder from the soft-quote pricing: asks above the price widening with size, bids below, in its session', async () => {
    tickTime += 1_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'NVDAon', timestamp: tickTime, tokenPrice: '180', underlyingPrice: '179.9' }]);
    const call = reference<Depth>('StreamSoftQuoteDepth', ['NVDAon']);
    const [depth] = (await call.next()).updates;
    expect(depth).toMatchObject({ symbol: 'NVDAon', ticker: 'NVDA', session_type: 'regular', error: '', timestamp: ns(tickTime) });
    expect(depth!.asks.length).toBeGreaterThan(1);
    expect(depth!.bids.length).toBe(depth!.asks.length);
    for (const level of [...depth!.asks, ...depth!.bids]) {
      expect(level.price).toMatch(DECIMAL);
      expect(level.quantity).toMatch(DECIMAL);
      expect(Number(level.quantity)).toBeGreaterThan(0);
    }
    const asks = depth!.asks.map((level) => Number(level.price));
    const bids = depth!.bids.map((level) => Number(level.price));
    expect(asks[0]).toBeGreaterThan(180);
    expect(bids[0]).toBeLessThan(180);
    expect(asks).toEqual([...asks].sort((a, b) => a - b));
    expect(bids).toEqual([...bids].sort((a, b) => b - a));
    expect(asks.at(-1)! - 180).toBeGreaterThan(asks[0]! - 180);

    tickTime += 1_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'NVDAon', timestamp: tickTime, tokenPrice: '190', underlyingPrice: '189.9' }]);
    const [moved] = (await call.next()).updates;
    expect(Number(moved!.asks[0]!.price)).toBeGreaterThan(190);
    expect(moved!.timestamp).toBe(ns(tickTime));
  });

  test('an asset that cannot trade now: its error inline, both sides empty', async () => {
    const saturday = nextInstant('saturday', stack.now()).at;
    const before = stack.now();
    stack.setNow(saturday);
    try {
      const call = reference<Depth>('StreamSoftQuoteDepth', ['AAPLon']);
      const [depth] = (await call.next()).updates;
      expect(depth).toMatchObject({ symbol: 'AAPLon', ticker: 'AAPL', session_type: 'offhours', bids: [], asks: [], timestamp: ns(saturday) });
      expect(depth!.error).not.toBe('');
    } finally {
      stack.setNow(before);
    }
  });
});

describe('our additions, through our proto', () => {
  test('a call resuming from a frame’s last_event_id (as metadata) gets exactly the updates after it', async () => {
    const first = new GrpcStream<{ updates: { timestamp: string }[]; lastEventId: string }>(stack.grpc.address, 'StreamPriceUpdates', { symbols: ['VALEon'] }, stack.keys.read, BackendServiceClient);
    calls.push(first);
    const seen = await first.next();
    expect(seen.lastEventId).toMatch(/^[0-9a-z]+-\d+$/);
    first.close();
    const missed = [tickTime + 1_000, tickTime + 2_000];
    tickTime += 2_000;
    for (const at of missed) await stack.ingest([{ symbol: 'VALEon', timestamp: at, tokenPrice: '11.5', underlyingPrice: '11.25' }]);
    const resumed = new GrpcStream<{ updates: { timestamp: string }[] }>(stack.grpc.address, 'StreamPriceUpdates', { symbols: ['VALEon'] }, stack.keys.read, BackendServiceClient, {
      'last-event-id': seen.lastEventId,
    });
    calls.push(resumed);
    const received: string[] = [];
    while (received.length < 2) received.push(...(await resumed.next()).updates.map((update) => update.timestamp));
    expect(received).toEqual(missed.map(ns));
  });

  test('5-minute candles, saying their interval', async () => {
    const call = new GrpcStream<{ updates: { interval: string; timestamp: string; primaryMarket: { close: string } }[] }>(stack.grpc.address, 'StreamOHLC', { symbols: ['QQQon'], interval: '5min' }, stack.keys.read, BackendServiceClient);
    calls.push(call);
    tickTime += 1_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'QQQon', timestamp: tickTime, tokenPrice: '520', underlyingPrice: '520' }]);
    const bucket = ns(Math.floor(tickTime / (5 * MINUTE_MS)) * 5 * MINUTE_MS);
    const frame = await call.next((message) => message.updates.some((update) => update.timestamp === bucket && update.primaryMarket.close === '520'));
    expect(frame.updates.find((update) => update.timestamp === bucket)).toMatchObject({ interval: '5min' });
  });
});
