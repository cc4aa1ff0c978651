/**
 * Live streams over Server-Sent Events against the real app, pipeline and PostgreSQL: refusals in the documented
 * shape, latest prices first then every change, candles that close once (again, revised, after a late tick) and
 * equal what `/prices/ohlc` answers, `Last-Event-ID` resume without a gap, heartbeats, the per-key allowance and
 * slow consumers dropped; every event any test received matches the schema the OpenAPI document names for it.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../api/resources';
import { MINUTE_MS, SseClient, regularSessionMinute, startStreamStack, type SseMessage, type StreamStack } from './support';

const START = regularSessionMinute(Date.now());
let stack: StreamStack;
const clients: SseClient[] = [];
/** Tick times only move forward, so every tick is the newest price. */
let tickTime = START + 10_000;
const nextTickTime = (stepMs = 1_000): number => (tickTime += stepMs);

beforeAll(async () => {
  stack = await startStreamStack({ start: START + 10_000, settings: { heartbeatMs: 200, streamsPerKey: 5, maxBufferedBytes: 64 * 1024 } });
});
/** The schema of each event's `data`, as the two streams' answers name them in the document (`x-event-schemas`). */
const documented = (() => {
  const document = openApiDocument('http://issuer.test');
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'openapi' });
  const named = ['/v1/stream/prices', '/v1/assets/{symbol}/prices/ohlc/stream'].flatMap((route) =>
    Object.entries(document.paths[route]!.get!.responses['200']!['x-event-schemas'] as Record<string, { $ref: string }>),
  );
  return new Map(named.map(([event, { $ref }]) => [event, ajv.compile({ $ref: `openapi${$ref}` })]));
})();

afterEach(() => {
  for (const client of clients.splice(0)) {
    client.close();
    for (const message of client.messages) {
      const validate = documented.get(message.event);
      expect({ event: message.event, documented: validate?.(message.data) ?? false, errors: validate?.errors ?? null }).toEqual({ event: message.event, documented: true, errors: null });
    }
  }
});
afterAll(() => stack.close());

async function open(path: string, headers: Record<string, string> = { 'x-api-key': stack.keys.read }): Promise<SseClient> {
  const client = await SseClient.open(`${stack.api.url}${path}`, headers);
  clients.push(client);
  return client;
}

const priceOf = (symbol: string) => (message: SseMessage) =>
  message.event === 'price' && (message.data as { primaryMarket: { symbol: string } }).primaryMarket.symbol === symbol;

describe('refusals before the stream starts, as {code, message, documentation}', () => {
  test.each([
    ['/v1/stream/prices?symbols=AAPLon', {}, 401, 'MISSING_API_KEY'],
    ['/v1/stream/prices?symbols=AAPLon', { 'x-api-key': 'not-a-key' }, 401, 'INVALID_API_KEY'],
    ['/v1/stream/prices?symbols=AAPL', undefined, 400, 'INVALID_SYMBOL'],
    ['/v1/stream/prices?symbols=AAPLon,ZZZZon', undefined, 404, 'ASSET_NOT_FOUND'],
    ['/v1/assets/AAPL/prices/ohlc/stream?interval=1min', undefined, 400, 'INVALID_SYMBOL'],
    ['/v1/assets/ZZZZon/prices/ohlc/stream?interval=1min', undefined, 404, 'ASSET_NOT_FOUND'],
    ['/v1/assets/AAPLon/prices/ohlc/stream?interval=1hour', undefined, 400, 'INVALID_INTERVAL'],
    ['/v1/assets/AAPLon/prices/ohlc/stream?interval=2min', undefined, 400, 'INVALID_INTERVAL'],
  ] as const)('%s %j → %i %s', async (path, headers, status, code) => {
    const client = await open(path, headers ?? { 'x-api-key': stack.keys.read });
    expect(client.status).toBe(status);
    expect(client.body).toEqual({ code, message: expect.any(String), documentation: `http://issuer.test/docs/errors#${code.toLowerCase()}` });
  });
});

describe('GET /v1/stream/prices', () => {
  test('sends the latest price of each symbol first, equal to the REST answer, then every change of those symbols only', async () => {
    const client = await open('/v1/stream/prices?symbols=AAPLon,TSLAon');
    expect(client.status).toBe(200);
    expect(client.response!.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    for (const symbol of ['AAPLon', 'TSLAon']) {
      const message = await client.next(priceOf(symbol));
      expect(message.data).toEqual((await stack.get(`/v1/assets/${symbol}/prices/latest`)).body);
      expect(message.id).toMatch(/^[0-9a-z]+-\d+$/);
    }

    const t = nextTickTime();
    await stack.ingest([
      { symbol: 'MSFTon', timestamp: t, tokenPrice: '401.5', underlyingPrice: '400.25' },
      { symbol: 'AAPLon', timestamp: t, tokenPrice: '230.125', underlyingPrice: '230.1' },
    ]);
    const change = await client.next();
    expect(change.event).toBe('price');
    expect(change.data).toEqual({ primaryMarket: { symbol: 'AAPLon', price: '230.125' }, underlyingMarket: { ticker: 'AAPL', price: '230.1' }, timestamp: t });
    expect(change.data).toEqual((await stack.get('/v1/assets/AAPLon/prices/latest')).body);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.pending().filter((message) => message.event === 'price')).toEqual([]);
  });

  test('no symbols: every asset of the catalogue', async () => {
    const client = await open('/v1/stream/prices');
    const all = (await stack.get('/v1/assets/all/prices/latest')).body as unknown[];
    while (client.messages.length < all.length) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(new Set(client.messages.map((message) => JSON.stringify(message.data)))).toEqual(new Set(all.map((item) => JSON.stringify(item))));
  });

  test('a reconnect with Last-Event-ID gets exactly the changes it missed, in order, without the snapshot', async () => {
    const first = await open('/v1/stream/prices?symbols=NVDAon');
    await first.next(priceOf('NVDAon'));
    const t = nextTickTime();
    await stack.ingest([{ symbol: 'NVDAon', timestamp: t, tokenPrice: '180.5', underlyingPrice: '180.25' }]);
    await first.next(priceOf('NVDAon'));
    const lastSeen = first.lastId()!;
    first.close();

    const missed = [nextTickTime(), nextTickTime(), nextTickTime()];
    for (const [index, at] of missed.entries()) {
      await stack.ingest([
        { symbol: 'NVDAon', timestamp: at, tokenPrice: `181.${index + 1}`, underlyingPrice: '181' },
        { symbol: 'AMZNon', timestamp: at, tokenPrice: '210', underlyingPrice: '210' },
      ]);
    }
    const resumed = await open('/v1/stream/prices?symbols=NVDAon', { 'x-api-key': stack.keys.read, 'last-event-id': lastSeen });
    const replayed = [await resumed.next(), await resumed.next(), await resumed.next()];
    expect(replayed.map((message) => (message.data as { timestamp: number }).timestamp)).toEqual(missed);
    expect(replayed.map((message) => (message.data as { primaryMarket: { price: string } }).primaryMarket.price)).toEqual(['181.1', '181.2', '181.3']);

    const live = nextTickTime();
    await stack.ingest([{ symbol: 'NVDAon', timestamp: live, tokenPrice: '182', underlyingPrice: '182' }]);
    expect(((await resumed.next()).data as { timestamp: number }).timestamp).toBe(live);
  });

  test.each([['an id of another process', 'zzzz-5'], ['a malformed id', 'yesterday']])('a reconnect with %s gets the latest price first', async (_, id) => {
    const client = await open('/v1/stream/prices?symbols=AAPLon', { 'x-api-key': stack.keys.read, 'last-event-id': id });
    expect((await client.next()).data).toEqual((await stack.get('/v1/assets/AAPLon/prices/latest')).body);
  });

  test('an idle stream gets heartbeat comments', async () => {
    const client = await open('/v1/stream/prices?symbols=AAPLon');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(client.comments.filter((comment) => comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
  });

  test('a key holds at most its allowance of open streams (429 RATE_LIMITED beyond), given back when one closes', async () => {
    const open5 = await Promise.all(Array.from({ length: 5 }, () => open('/v1/stream/prices?symbols=AAPLon')));
    expect(open5.map((client) => client.status)).toEqual([200, 200, 200, 200, 200]);
    const refused = await open('/v1/assets/AAPLon/prices/ohlc/stream');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('streams') });

    open5[0]!.close();
    const deadline = Date.now() + 5_000;
    while (stack.streams.quota.count((await keyId())!) >= 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await open('/v1/stream/prices?symbols=AAPLon')).status).toBe(200);
  });

  test('a client that stops reading is dropped with a reason once it leaves more than the limit unread; memory stays bounded', async () => {
    const slow = await open('/v1/stream/prices?symbols=NFLXon');
    const fast = await open('/v1/stream/prices?symbols=NFLXon');
    await slow.next();
    slow.response!.pause();
    const before = stack.streams.hub.subscriptionCount();
    // Far more than the socket buffers hold: the server has to keep the rest, up to its limit.
    const base = nextTickTime();
    tickTime += 100_000;
    for (let batch = 0; batch < 200; batch++) {
      stack.streams.hub.publishStored({
        prices: Array.from({ length: 200 }, (_, index) => ({ symbol: 'NFLXon', tokenPrice: `300.${batch * 200 + index}`, underlyingPrice: '300', observedAt: base + batch * 200 + index })),
        candles: [],
      });
      await stack.streams.hub.flushed();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(stack.streams.hub.subscriptionCount()).toBe(before - 1);
    slow.response!.resume();
    const dropped = await slow.next((message) => message.event === 'dropped', 20_000);
    expect(dropped.data).toEqual({ reason: expect.stringMatching(/^slow consumer: \d+ bytes unread \(limit 65536\)$/) });
    expect(slow.messages.length).toBeLessThan(40_000);

    const last = await fast.next((message) => (message.data as { timestamp?: number }).timestamp === base + 39_999, 20_000);
    expect(last.event).toBe('price');
  });
});

async function keyId(): Promise<string | undefined> {
  const { rows } = await stack.db.query<{ id: string }>(`SELECT id::text FROM api_keys WHERE name = 'streams test'`);
  return rows[0]?.id;
}

describe('GET /v1/assets/{symbol}/prices/ohlc/stream', () => {
  type Candle = { timestamp: number; open: string; high: string; low: string; close: string };
  type CandleEvent = { interval: string; timestamp: number; isClosed: boolean; primaryMarket: { symbol: string; candle: Candle | null }; underlyingMarket: { ticker: string; candle: Candle | null } };
  const candle = (message: SseMessage) => message.data as CandleEvent;

  test('the current bucket, its updates while open, one final update when it closes, equal to /prices/ohlc', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 5_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'MSFTon', timestamp: tickTime, tokenPrice: '402', underlyingPrice: '401', tokenVolume: '2', underlyingVolume: '30' }]);

    const client = await open('/v1/assets/MSFTon/prices/ohlc/stream?interval=1min');
    const current = candle(await client.next());
    expect(current).toEqual({
      interval: '1min',
      timestamp: bucket,
      isClosed: false,
      primaryMarket: { symbol: 'MSFTon', candle: { timestamp: bucket, open: '402', high: '402', low: '402', close: '402' } },
      underlyingMarket: { ticker: 'MSFT', candle: { timestamp: bucket, open: '401', high: '401', low: '401', close: '401' } },
    });

    stack.setNow(nextTickTime(10_000));
    await stack.ingest([{ symbol: 'MSFTon', timestamp: tickTime, tokenPrice: '405.5', underlyingPrice: '404' }]);
    const update = candle(await client.next());
    expect(update).toMatchObject({ timestamp: bucket, isClosed: false, primaryMarket: { candle: { open: '402', high: '405.5', low: '402', close: '405.5' } } });

    stack.setNow(nextTickTime(10_000));
    await stack.ingest([{ symbol: 'MSFTon', timestamp: tickTime, tokenPrice: '399.75', underlyingPrice: '399' }]);
    expect(candle(await client.next())).toMatchObject({ isClosed: false, primaryMarket: { candle: { high: '405.5', low: '399.75', close: '399.75' } } });

    // The bucket ends and its grace passes with no further tick: the clock closes it.
    stack.setNow(bucket + MINUTE_MS + 1_000);
    const closed = candle(await client.next());
    expect(closed).toMatchObject({ timestamp: bucket, isClosed: true, primaryMarket: { candle: { open: '402', high: '405.5', low: '399.75', close: '399.75' } } });

    const rest = (await stack.get('/v1/assets/MSFTon/prices/ohlc?interval=1min&range=1day')).body as {
      primaryMarket: { data: Candle[] };
      underlyingMarket: { data: Candle[] };
    };
    expect(closed.primaryMarket.candle).toEqual(rest.primaryMarket.data.find((item) => item.timestamp === bucket));
    expect(closed.underlyingMarket.candle).toEqual(rest.underlyingMarket.data.find((item) => item.timestamp === bucket));

    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.pending()).toEqual([]);
    tickTime = bucket + MINUTE_MS + 1_000;
  });

  test('a tick in the next bucket closes the open one first, before the clock does', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 50_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'GOOGLon', timestamp: tickTime, tokenPrice: '170', underlyingPrice: '170' }]);
    const client = await open('/v1/assets/GOOGLon/prices/ohlc/stream');
    expect(candle(await client.next())).toMatchObject({ timestamp: bucket, isClosed: false });

    tickTime = bucket + MINUTE_MS + 100;
    await stack.ingest([{ symbol: 'GOOGLon', timestamp: tickTime, tokenPrice: '171', underlyingPrice: '171' }]);
    const closed = candle(await client.next());
    const next = candle(await client.next());
    expect(closed).toMatchObject({ timestamp: bucket, isClosed: true, primaryMarket: { candle: { close: '170' } } });
    expect(next).toMatchObject({ timestamp: bucket + MINUTE_MS, isClosed: false, primaryMarket: { candle: { open: '171' } } });
    stack.setNow(tickTime);
  });

  test('a late tick into a closed bucket sends its closed candle again, revised, equal to /prices/ohlc; the current candle stays', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 30_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'AMZNon', timestamp: tickTime, tokenPrice: '190', underlyingPrice: '190' }]);
    const client = await open('/v1/assets/AMZNon/prices/ohlc/stream');
    expect(candle(await client.next())).toMatchObject({ timestamp: bucket, isClosed: false });
    tickTime = bucket + MINUTE_MS + 100;
    await stack.ingest([{ symbol: 'AMZNon', timestamp: tickTime, tokenPrice: '191', underlyingPrice: '191' }]);
    expect(candle(await client.next())).toMatchObject({ timestamp: bucket, isClosed: true, primaryMarket: { candle: { low: '190' } } });
    expect(candle(await client.next())).toMatchObject({ timestamp: bucket + MINUTE_MS, isClosed: false });

    // A tick stamped inside the closed bucket arrives after it closed.
    await stack.ingest([{ symbol: 'AMZNon', timestamp: bucket + 40_000, tokenPrice: '185', underlyingPrice: '186' }]);
    const revised = candle(await client.next());
    expect(revised).toMatchObject({ timestamp: bucket, isClosed: true, primaryMarket: { candle: { low: '185' } }, underlyingMarket: { candle: { low: '186' } } });
    const rest = (await stack.get('/v1/assets/AMZNon/prices/ohlc?interval=1min&range=1day')).body as { primaryMarket: { data: Candle[] }; underlyingMarket: { data: Candle[] } };
    expect(revised.primaryMarket.candle).toEqual(rest.primaryMarket.data.find((item) => item.timestamp === bucket));
    expect(revised.underlyingMarket.candle).toEqual(rest.underlyingMarket.data.find((item) => item.timestamp === bucket));

    const joining = await open('/v1/assets/AMZNon/prices/ohlc/stream');
    expect(candle(await joining.next())).toMatchObject({ timestamp: bucket + MINUTE_MS, isClosed: false, primaryMarket: { candle: { close: '191' } } });
    stack.setNow(tickTime);
  });

  test('a reconnect with Last-Event-ID after a bucket closed gets the final candle it missed', async () => {
    const bucket = Math.ceil((tickTime + 1) / MINUTE_MS) * MINUTE_MS;
    tickTime = bucket + 1_000;
    stack.setNow(tickTime);
    await stack.ingest([{ symbol: 'KOon', timestamp: tickTime, tokenPrice: '150', underlyingPrice: '150' }]);
    const first = await open('/v1/assets/KOon/prices/ohlc/stream?interval=1min');
    await first.next();
    const lastSeen = first.lastId()!;
    first.close();

    await stack.ingest([{ symbol: 'KOon', timestamp: nextTickTime(), tokenPrice: '151', underlyingPrice: '151' }]);
    stack.setNow(bucket + MINUTE_MS + 1_000);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const resumed = await open('/v1/assets/KOon/prices/ohlc/stream?interval=1min', { 'x-api-key': stack.keys.read, 'last-event-id': lastSeen });
    expect(candle(await resumed.next())).toMatchObject({ timestamp: bucket, isClosed: false, primaryMarket: { candle: { close: '151' } } });
    expect(candle(await resumed.next())).toMatchObject({ timestamp: bucket, isClosed: true, primaryMarket: { candle: { close: '151' } } });
    tickTime = bucket + MINUTE_MS + 1_000;
  });
});
