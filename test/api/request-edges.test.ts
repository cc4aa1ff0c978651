/**
 * Edges a client meets before any business logic: empty and null bodies, a wallet address on a chain that does not
 * take one, the tick ingestion's own body limit (a full 5,000-tick request), `Allow` on 405, and a client that goes
 * away mid-body (a client abort in the log, not an outage).
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { listen } from '../../api/server';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';
import { eventually } from '../support/temporal';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const attestations = async () => (await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestations')).rows[0]!.n;

describe('a missing, empty or null body is INVALID_REQUEST_BODY', () => {
  test.each([
    ['POST /v1/attestations', '/v1/attestations', 'write'],
    ['POST /v1/attestations/soft', '/v1/attestations/soft', 'write'],
    ['POST /v1/market-data/ticks', '/v1/market-data/ticks', 'admin'],
    ['POST /v1/status/market/pause', '/v1/status/market/pause', 'admin'],
  ] as const)('%s', async (_name, path, scope) => {
    for (const body of [undefined, 'null', '']) {
      let call = api.http.post(path).set('x-api-key', api.keys[scope]).set('content-type', 'application/json');
      if (body !== undefined) call = call.send(body);
      const response = await call;
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        code: 'INVALID_REQUEST_BODY',
        message: expect.stringContaining('JSON object is required'),
        documentation: `${TEST_BASE_URL}/docs/errors#invalid_request_body`,
      });
    }
    expect(await attestations()).toBe(0);
    expect((await api.db.query('SELECT paused FROM market_state')).rows[0].paused).toBe(false);
  });
});

test.each(['ethereum-1', 'bsc-56'])('a userAddress on %s is refused with the field named, and nothing is stored', async (chainId) => {
  const response = await api.http
    .post('/v1/attestations')
    .set('x-api-key', api.keys.write)
    .send({ symbol: 'AAPLon', side: 'buy', tokenAmount: '1', chainId, userAddress: '0x1111111111111111111111111111111111111111' });
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('INVALID_USER_ADDRESS');
  expect(response.body.message).toContain('userAddress');
  expect(await attestations()).toBe(0);
});

test('the tick ingestion takes the 5,000 ticks it promises, far past the general 64 KB body limit', async () => {
  const start = Date.now() - 1_000 - 4_999 * 100;
  const ticks = Array.from({ length: 5_000 }, (_, index) => ({
    symbol: 'KOon',
    timestamp: start + index * 100,
    underlyingPrice: `70.${String(index).padStart(4, '0')}`,
    underlyingVolume: '1234.567890123456789',
    tokenVolume: '12.345678901234567891',
  }));
  const body = JSON.stringify({ ticks }, null, 2);
  expect(body.length).toBeGreaterThan(64 * 1024 * 10);
  const response = await api.http.post('/v1/market-data/ticks').set('x-api-key', api.keys.admin).set('content-type', 'application/json').send(body);
  expect(response.status).toBe(202);
  expect(response.body).toEqual({ accepted: 5_000 });
  const last = start + 4_999 * 100;
  const candle = await api.db.query<{ close: string }>(
    `SELECT close::text FROM candles WHERE symbol = 'KOon' AND market = 'underlying' AND interval = '1min' AND bucket_start = $1`,
    [last - (last % 60_000)],
  );
  expect(candle.rows[0]!.close).toBe('70.4999');
  const latest = await api.db.query<{ p: string }>(`SELECT underlying_price::text AS p FROM latest_prices WHERE symbol = 'KOon'`);
  expect(latest.rows[0]!.p).toBe('70.4999');
});

test('past the ingestion limit it is still 413', async () => {
  const response = await api.http
    .post('/v1/market-data/ticks')
    .set('x-api-key', api.keys.admin)
    .set('content-type', 'application/json')
    .send(`{"ticks":[${' '.repeat(3 * 1024 * 1024)}]}`);
  expect(response.status).toBe(413);
  expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
});

test.each([
  ['DELETE', '/v1/tickers', 'GET'],
  ['PUT', '/v1/attestations', 'POST'],
  ['GET', '/v1/market-data/ticks', 'POST'],
] as const)('%s %s is 405 with Allow: %s', async (method, path, allowed) => {
  const response = await api.http[method.toLowerCase() as 'get' | 'put' | 'delete'](path).set('x-api-key', api.keys.admin);
  expect(response.status).toBe(405);
  expect(response.body.code).toBe('METHOD_NOT_ALLOWED');
  expect(response.headers.allow?.split(', ')).toContain(allowed);
});

test('a client that aborts mid-body is logged as a client abort, not as the database unreachable, and nothing is written', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const logged = await createTestApi({ database: api, logger: pino({ level: 'info' }, sink) });
  const server = await listen(logged.app, { host: '127.0.0.1', port: 0 });
  try {
    const request = http.request(`${server.url}/v1/status/market/pause`, {
      method: 'POST',
      headers: { 'x-api-key': logged.keys.admin, 'content-type': 'application/json', 'content-length': '200' },
    });
    request.on('error', () => undefined);
    request.write('{"reason": "half a bo');
    await new Promise((resolve) => setTimeout(resolve, 100));
    request.destroy();
    const aborted = await eventually(async () => {
      const line = lines.find((entry) => entry.msg === 'request aborted by the client');
      expect(line).toBeDefined();
      return line!;
    });
    expect(aborted).toMatchObject({ method: 'POST', path: '/v1/status/market/pause', clientAborted: true, level: 30 });
    expect(lines.filter((entry) => Number(entry.level) >= 40)).toEqual([]);
    expect(lines.filter((entry) => entry.status === 503 || /database/i.test(String(entry.msg)))).toEqual([]);
    expect((await api.db.query('SELECT paused FROM market_state')).rows[0].paused).toBe(false);
  } finally {
    await server.close();
  }
});
