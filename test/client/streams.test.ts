/**
 * The kit's SSE iterators against a scripted local server that plays each connection as the test says: a connection
 * that ends is reopened with the last id as Last-Event-ID after the server's `retry`; `event: dropped` ends a
 * connection the same way; a resume the server could not make (its answer starts with another process's id, or with
 * an event already given) is announced as `{kind: 'reset'}` and no event is given twice; a 503 on connect is waited
 * out as its Retry-After says; a refusal the stream cannot outwait is thrown as an IssuerApiError.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIssuerClient, isIssuerError, type StreamItem } from 'tokenized-stock-issuer-client';

let server: Server;
let baseUrl: string;
/** What each connection answers, in order: SSE text to write before ending, or a status with headers. */
let connections: ({ sse: string } | { status: number; headers?: Record<string, string>; body?: string })[];
let requests: IncomingMessage[];

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests.push(request);
    const next = connections.shift() ?? { sse: '' };
    if ('status' in next) {
      response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body ?? '{}');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`retry: 5\n\n${next.sse}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  requests = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const price = (id: string, value: string) => `id: ${id}\nevent: price\ndata: {"primaryMarket":{"symbol":"SPYon","price":"${value}"}}\n\n`;

/** The first `count` items of the price stream, then the iterator is ended. */
async function take(count: number): Promise<StreamItem<string, unknown>[]> {
  const items: StreamItem<string, unknown>[] = [];
  const stop = new AbortController();
  for await (const item of createIssuerClient({ baseUrl, apiKey: 'k' }).streams.prices({ symbols: ['SPYon'], signal: stop.signal })) {
    items.push(item);
    if (items.length === count) stop.abort();
  }
  return items;
}

const ids = (items: StreamItem<string, unknown>[]) => items.map((item) => (item.kind === 'event' ? item.id : 'reset'));

test('an aborted iterator gives nothing more, even what it had already read', async () => {
  connections = [{ sse: price('e1-1', '1') + price('e1-2', '2') + price('e1-3', '3') }];
  expect(ids(await take(1))).toEqual(['e1-1']);
});

test('an ended connection and a dropped one are reopened with Last-Event-ID; a resumed stream has no reset', async () => {
  connections = [{ sse: price('e1-1', '1') + price('e1-2', '2') }, { sse: price('e1-3', '3') + 'event: dropped\ndata: {"reason":"slow"}\n\n' + price('e1-9', 'x') }, { sse: price('e1-4', '4') }];
  const items = await take(4);
  expect(ids(items)).toEqual(['e1-1', 'e1-2', 'e1-3', 'e1-4']);
  expect(items[0]).toEqual({ kind: 'event', id: 'e1-1', event: 'price', data: { primaryMarket: { symbol: 'SPYon', price: '1' } } });
  expect(requests.map((request) => request.headers['last-event-id'])).toEqual([undefined, 'e1-2', 'e1-3']);
  expect(requests[0]!.url).toBe('/v1/stream/prices?symbols=SPYon');
  expect(requests[0]!.headers['x-api-key']).toBe('k');
});

test("a resume answered by another process, or from the latest values, is a reset, and no event comes twice", async () => {
  connections = [{ sse: price('e1-1', '1') + price('e1-2', '2') }, { sse: price('e2-7', '7') }, { sse: price('e2-7', '7') + price('e2-8', '8') }];
  expect(ids(await take(6))).toEqual(['e1-1', 'e1-2', 'reset', 'e2-7', 'reset', 'e2-8']);
  expect(requests.map((request) => request.headers['last-event-id'])).toEqual([undefined, 'e1-2', 'e2-7']);
});

test('a 503 on connect is waited out; a 400 is thrown as the typed error', async () => {
  connections = [{ status: 503, headers: { 'retry-after': '0' } }, { sse: price('e1-1', '1') }];
  expect(ids(await take(1))).toEqual(['e1-1']);
  expect(requests).toHaveLength(2);

  connections = [{ status: 400, body: JSON.stringify({ code: 'INVALID_SYMBOL', message: 'symbols: NOPE', documentation: 'x#invalid_symbol' }) }];
  const error: unknown = await take(1).catch((caught: unknown) => caught);
  expect(isIssuerError(error, 'INVALID_SYMBOL')).toBe(true);
});
