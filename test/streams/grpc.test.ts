/**
 * Live streams over gRPC, our first service (proto/market_stream.proto), against the real server, pipeline and PostgreSQL: the API key
 * as metadata, the shared per-key allowance, latest prices first then changes, and candles equal to the SSE events
 * and to `/prices/ohlc` once closed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createApiKey } from '../../db/queries/api-keys';
import { nextInstant } from '../../harness/instants';
import type { OHLCUpdateMessage, PriceUpdateMessage } from '../../streams/grpc-proto';
import { GrpcStream, MINUTE_MS, SseClient, regularSessionMinute, startStreamStack, type StreamStack } from './support';

const START = regularSessionMinute(Date.now());
let stack: StreamStack;
const calls: { close(): void }[] = [];
let tickTime = START + 10_000;

beforeAll(async () => {
  stack = await startStreamStack({ start: tickTime, authFailuresPerMinute: 3, settings: { streamsPerKey: 4, maxPendingMessages: 100 } });
});
afterEach(() => {
  for (const call of calls.splice(0)) call.close();
});
afterAll(() => stack.close());

function prices(symbols: string[], key: string | null = stack.keys.read): GrpcStream<PriceUpdateMessage> {
  const call = new GrpcStream<PriceUpdateMessage>(stack.grpc.address, 'StreamPriceUpdates', { symbols }, key);
  calls.push(call);
  return call;
}

function ohlc(symbol: string, interval: string, key: string | null = stack.keys.read): GrpcStream<OHLCUpdateMessage> {
  const call = new GrpcStream<OHLCUpdateMessage>(stack.grpc.address, 'StreamOHLC', { symbol, interval }, key);
  calls.push(call);
  return call;
}

describe('refusals', () => {
  test.each([
    ['StreamPriceUpdates without a key', grpc.status.UNAUTHENTICATED, () => prices(['AAPLon'], null)],
    ['StreamPriceUpdates with an unknown key', grpc.status.UNAUTHENTICATED, () => prices(['AAPLon'], 'not-a-key')],
    ['StreamOHLC without a key', grpc.status.UNAUTHENTICATED, () => ohlc('AAPLon', '1min', null)],
    ['a malformed symbol', grpc.status.INVALID_ARGUMENT, () => prices(['AAPL'])],
    ['an unknown symbol', grpc.status.NOT_FOUND, () => prices(['AAPLon', 'ZZZZon'])],
    ['an interval the streams do not serve', grpc.status.INVALID_ARGUMENT, () => ohlc('AAPLon', '1day')],
  ] as const)('%s → status %i', async (_, code, start) => {
    const call = start();
    expect((await call.ended()).code).toBe(code);
    expect(call.messages).toEqual([]);
  });

  test('valid keys the server has not seen yet all stream in a first burst, more of them at once than failures are allowed', async () => {
    const fresh = await Promise.all(Array.from({ length: 5 }, async (_, index) => (await createApiKey(stack.db, { name: `grpc first burst ${index}`, scope: 'read' })).secret));
    // One key four times (one lookup shared), four more keys once each: five lookups against a budget of two failures left.
    const burst = [...Array.from({ length: 4 }, () => fresh[0]!), ...fresh.slice(1)].map((key) => prices(['AAPLon'], key));
    const first = await Promise.all(burst.map((call) => call.next()));
    expect(first.map((message) => message.primaryMarket.symbol)).toEqual(Array(8).fill('AAPLon'));
  });

  test('an address guessing keys gets RESOURCE_EXHAUSTED before its guesses are looked up; a valid key still streams', async () => {
    const codes: grpc.status[] = [];
    for (let attempt = 0; attempt < 5; attempt++) codes.push((await prices(['AAPLon'], `guess-${attempt}`).ended()).code);
    expect(codes.slice(0, 2)).toEqual([grpc.status.UNAUTHENTICATED, grpc.status.UNAUTHENTICATED]);
    expect(codes.slice(3)).toEqual([grpc.status.RESOURCE_EXHAUSTED, grpc.status.RESOURCE_EXHAUSTED]);
    expect((await prices(['AAPLon']).next()).primaryMarket.symbol).toBe('AAPLon');
  });

  test('a key past its allowance of open streams, SSE and gRPC together, gets RESOURCE_EXHAUSTED', async () => {
    const sse = await SseClient.open(`${stack.api.url}/v1/stream/prices?symbols=AAPLon`, { 'x-api-key': stack.keys.read });
    calls.push(sse);
    const open = [prices(['AAPLon']), prices(['AAPLon']), ohlc('AAPLon', '1min')];
    await Promise.all(open.map((call) => call.next()));
    const refused = prices(['AAPLon']);
    const status = await refused.ended();
    expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(status.details).toContain('streams');
  });
});

describe('StreamPriceUpdates', () => {
  test('the latest price of each symbol first, as the REST answer, then every change', async () => {
    const call = prices(['TSLAon', 'AAPLon']);
    const first = [await call.next(), await call.next()];
    for (const message of first) {
      const { eventId, ...view } = message;
      expect(eventId).toMatch(/^[0-9a-z]+-\d+$/);
      expect(view).toEqual((await stack.get(`/v1/assets/${message.primaryMarket.symbol}/prices/latest`)).body);
    }
    expect(first.map((message) => message.primaryMarket.symbol).sort()).toEqual(['AAPLon', 'TSLAon']);

    tickTime += 1_000;
    await stack.ingest([
      { symbol: 'TSLAon', timestamp: tickTime, tokenPrice: '350.75', underlyingPrice: '350.5' },
      { symbol: 'SPYon', timestamp: tickTime, tokenPrice: '600', underlyingPrice: '600' },
    ]);
    const change = await call.next();
    expect(change).toEqual({ primaryMarket: { symbol: 'TSLAon', price: '350.75' }, underlyingMarket: { ticker: 'TSLA', price: '350.5' }, timestamp: tickTime, eventId: expect.any(String) });
  });
});

describe('resuming', () => {
  test('a call with last_event_id gets exactly the updates after it, then every change', async () => {
    const first = prices(['VALEon']);
    const seen = await first.next();
    first.close();
    const missed = [tickTime + 1_000, tickTime + 2_000];
    tickTime += 2_000;
    for (const at of missed) await stack.ingest([{ symbol: 'VALEon', timestamp: at, tokenPrice: '11.5', underlyingPrice: '11.25' }]);
    const resumed = new GrpcStream<PriceUpdateMessage>(stack.grpc.address, 'StreamPriceUpdates', { symbols: ['VALEon'], lastEventId: seen.eventId }, stack.keys.read);
    calls.push(resumed);
    expect([(await resumed.next()).timestamp, (await resumed.next()).timestamp]).toEqual(missed);
    tickTime += 1_000;
    await stack.ingest([{ symbol: 'VALEon', timestamp: tickTime, tokenPrice: '11.75', underlyingPrice: '11.5' }]);
    expect((await resumed.next()).timestamp).toBe(tickTime);
  });
});

describe('a call that stops reading', () => {
  test('is ended with RESOURCE_EXHAUSTED and a reason once it leaves more than the limit unsent; the others get everything', async () => {
    const slow = prices(['IWMon']);
    const fast = prices(['IWMon']);
    await Promise.all([slow.next(), fast.next()]);
    slow.call.pause();
    const before = stack.streams.hub.subscriptionCount();
    tickTime += 1_000;
    const base = tickTime;
    for (let batch = 0; batch < 1_000; batch++) {
      stack.streams.hub.publishStored({
        prices: Array.from({ length: 20 }, (_, index) => ({ symbol: 'IWMon', tokenPrice: `220.${batch * 20 + index}`, underlyingPrice: '220', observedAt: base + batch * 20 + index })),
        candles: [],
      });
      await stack.streams.hub.flushed();
      // The reading client keeps up: the next burst goes out once it has this one.
      while (fast.messages.length < 1 + (batch + 1) * 20) await new Promise((resolve) => setImmediate(resolve));
    }
    tickTime = base + 20_000;
    expect(stack.streams.hub.subscriptionCount()).toBe(before - 1);
    slow.call.resume();
    const status = await slow.ended(20_000);
    expect(status.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(status.details).toMatch(/^slow consumer: \d+ messages unread \(limit 100\)$/);
    expect(slow.messages.length).toBeLessThan(20_000);
    expect((await fast.next((message) => message.timestamp === base + 19_999, 20_000)).primaryMarket.price).toBe('220.19999');
  });
});

describe('StreamOHLC', () => {
  test('the current bucket, updates, one final is_closed update equal to the SSE event and to /prices/ohlc', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 2_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'METAon', timestamp: tickTime, tokenPrice: '700', underlyingPrice: '699.5' }]);
    const call = ohlc('METAon', '1min');
    const sse = await SseClient.open(`${stack.api.url}/v1/assets/METAon/prices/ohlc/stream?interval=1min`, { 'x-api-key': stack.keys.read });
    calls.push(sse);
    expect(await call.next()).toMatchObject({ interval: '1min', timestamp: bucket, isClosed: false, primaryMarket: { symbol: 'METAon', candle: { open: '700' } } });
    await sse.next();

    tickTime += 20_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'METAon', timestamp: tickTime, tokenPrice: '710.25', underlyingPrice: '709' }]);
    expect(await call.next()).toMatchObject({ isClosed: false, primaryMarket: { candle: { high: '710.25', close: '710.25' } } });
    await sse.next();

    stack.setNow(bucket + MINUTE_MS + 1_000);
    const { eventId, ...closed } = await call.next();
    const sseClosed = await sse.next();
    expect(closed.isClosed).toBe(true);
    expect(closed).toEqual(sseClosed.data);
    expect(eventId).toBe(sseClosed.id);

    const rest = (await stack.get('/v1/assets/METAon/prices/ohlc?interval=1min&range=1day')).body as {
      primaryMarket: { data: unknown[] };
      underlyingMarket: { data: unknown[] };
    };
    expect(closed.primaryMarket.candle).toEqual(rest.primaryMarket.data.find((item) => (item as { timestamp: number }).timestamp === bucket));
    expect(closed.underlyingMarket.candle).toEqual(rest.underlyingMarket.data.find((item) => (item as { timestamp: number }).timestamp === bucket));
  });

  test('5min and 15min buckets are streamed too', async () => {
    for (const [interval, size] of [['5min', 5 * MINUTE_MS], ['15min', 15 * MINUTE_MS]] as const) {
      const call = ohlc('QQQon', interval);
      tickTime += 1_000;
      stack.setNow(tickTime);
      await stack.ingest([{ symbol: 'QQQon', timestamp: tickTime, tokenPrice: '520', underlyingPrice: '520' }]);
      const message = await call.next((update) => update.timestamp === Math.floor(tickTime / size) * size && !update.isClosed);
      expect(message).toMatchObject({ interval, primaryMarket: { candle: { close: '520' } } });
    }
  });
});

describe('npm run stream', () => {
  test('with --count, gives up once no update came for --timeout seconds: exit 1, naming the asset that does not trade in the session', async () => {
    // The client's own clock on a Saturday, where AAPLon does not trade: its latest price comes, then nothing.
    const saturday = nextInstant('saturday');
    const client = spawn(process.execPath, ['--import', 'tsx', 'scripts/stream.ts', 'prices', 'AAPLon', '--count', '2', '--timeout', '1', '--address', stack.grpc.address, '--key', stack.keys.read], {
      cwd: path.join(__dirname, '..', '..'),
      env: { ...process.env, NODE_OPTIONS: `--import=${path.join(__dirname, '..', '..', 'harness', 'shifted-clock.mjs')}`, SHIFTED_CLOCK_START: new Date(saturday.at).toISOString(), SHIFTED_CLOCK_OFFSET_MS: '' },
    });
    const stopClient = setTimeout(() => client.kill('SIGKILL'), 30_000);
    let stdout = '';
    let stderr = '';
    client.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    client.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => client.once('close', resolve));
    clearTimeout(stopClient);
    // One JSON line per frame of the reference's StreamPriceUpdates.
    const symbols = stdout.trim() === '' ? [] : stdout.trim().split('\n').flatMap((line) => (JSON.parse(line) as { updates: { symbol: string }[] }).updates.map((update) => update.symbol));
    expect({ code, symbols, stderr: stderr.trim() }).toEqual({
      code: 1,
      symbols: ['AAPLon'],
      stderr: "1 of 2 updates: none for 1 s (AAPLon does not trade in the offhours session: a closed market's latest price comes first, then nothing until it opens)",
    });
  });
});
