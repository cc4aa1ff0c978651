/**
 * Two API processes on one PostgreSQL: what one process's pipeline stores reaches the streams of the other through
 * NOTIFY (prices from the announcement, candles read back), with the values the other's REST routes answer. A resume
 * from past the replay window, or at another process, starts from the latest state again.
 */
import { SseClient, regularSessionMinute, startStreamStack, type StreamStack } from './support';

const START = regularSessionMinute(Date.now());
let writer: StreamStack;
let reader: StreamStack;
const clients: SseClient[] = [];

beforeAll(async () => {
  writer = await startStreamStack({ start: START, retainMs: 300 });
  reader = await startStreamStack({ start: START, database: writer });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await reader?.close();
  await writer?.close();
});

async function open(stack: StreamStack, path: string): Promise<SseClient> {
  const client = await SseClient.open(`${stack.api.url}${path}`, { 'x-api-key': stack.keys.read });
  clients.push(client);
  return client;
}

test("a tick stored by one process reaches the other process's price and candle streams", async () => {
  const prices = await open(reader, '/v1/stream/prices?symbols=SPYon');
  await prices.next();
  const tickTime = START + 7_000;
  await writer.ingest([{ symbol: 'SPYon', timestamp: tickTime, tokenPrice: '612.5', underlyingPrice: '612.25' }]);
  const change = await prices.next();
  expect(change.data).toEqual({ primaryMarket: { symbol: 'SPYon', price: '612.5' }, underlyingMarket: { ticker: 'SPY', price: '612.25' }, timestamp: tickTime });
  expect(change.data).toEqual((await reader.get('/v1/assets/SPYon/prices/latest')).body);

  const candles = await open(reader, '/v1/assets/SPYon/prices/ohlc/stream?interval=1min');
  expect((await candles.next()).data).toMatchObject({ timestamp: START, isClosed: false, primaryMarket: { candle: { close: '612.5' } } });
  await writer.ingest([{ symbol: 'SPYon', timestamp: tickTime + 1_000, tokenPrice: '613', underlyingPrice: '612.75' }]);
  expect((await candles.next()).data).toMatchObject({ timestamp: START, isClosed: false, primaryMarket: { candle: { high: '613', close: '613' } } });
});

test('a process does not stream its own announcements twice', async () => {
  const prices = await open(writer, '/v1/stream/prices?symbols=QQQon');
  await prices.next();
  await writer.ingest([{ symbol: 'QQQon', timestamp: START + 20_000, tokenPrice: '530', underlyingPrice: '530' }]);
  await prices.next();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(prices.pending()).toEqual([]);
});

test('a Last-Event-ID older than the replay window, or of another process, gets the latest price first, then changes', async () => {
  const first = await open(writer, '/v1/stream/prices?symbols=TLTon');
  await first.next();
  await writer.ingest([{ symbol: 'TLTon', timestamp: START + 30_000, tokenPrice: '90.5', underlyingPrice: '90.5' }]);
  await first.next();
  const lastSeen = first.lastId()!;
  first.close();
  await writer.ingest([{ symbol: 'TLTon', timestamp: START + 31_000, tokenPrice: '90.75', underlyingPrice: '90.75' }]);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await writer.ingest([{ symbol: 'TLTon', timestamp: START + 32_000, tokenPrice: '91', underlyingPrice: '91' }]);

  let next = START + 33_000;
  for (const stack of [writer, reader]) {
    const resumed = await SseClient.open(`${stack.api.url}/v1/stream/prices?symbols=TLTon`, { 'x-api-key': stack.keys.read, 'last-event-id': lastSeen });
    clients.push(resumed);
    const latest = await resumed.next();
    expect(latest.data).toEqual((await stack.get('/v1/assets/TLTon/prices/latest')).body);
    expect((latest.data as { timestamp: number }).timestamp).toBe(next - 1_000);
    await writer.ingest([{ symbol: 'TLTon', timestamp: next, tokenPrice: '92', underlyingPrice: '92' }]);
    expect(((await resumed.next()).data as { timestamp: number }).timestamp).toBe(next);
    next += 1_000;
    resumed.close();
  }
});
