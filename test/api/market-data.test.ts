/** POST /v1/market-data/ticks: real prices in, visible as latest prices and candles. */
import { createTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const ingest = (body: unknown) => api.http.post('/v1/market-data/ticks').set('x-api-key', api.keys.admin).send(body as object);

test('ticks become the latest price and extend the candles of both markets', async () => {
  const t = Date.now() - 1_000;
  const response = await ingest({
    ticks: [
      { symbol: 'MSFTon', timestamp: t - 500, underlyingPrice: '400.10', tokenPrice: '401.00', tokenVolume: '3', underlyingVolume: '100' },
      { symbol: 'MSFTon', timestamp: t, underlyingPrice: '400.50', tokenPrice: '402.25', tokenVolume: '2', underlyingVolume: '50' },
    ],
  });
  expect(response.status).toBe(202);
  expect(response.body).toEqual({ accepted: 2 });
  const price = await api.http.get('/v1/assets/MSFTon/prices/latest').set('x-api-key', api.keys.read);
  expect(price.body).toEqual({ primaryMarket: { symbol: 'MSFTon', price: '402.25' }, underlyingMarket: { ticker: 'MSFT', price: '400.5' }, timestamp: t });
  const { rows } = await api.db.query(
    `SELECT high::text, low::text, close::text FROM candles WHERE symbol = 'MSFTon' AND market = 'primary' AND interval = '1min' ORDER BY bucket_start DESC LIMIT 1`,
  );
  expect(rows[0].close).toBe('402.25');
});

test('a tick with only the underlying price derives the token price from the shares multiplier', async () => {
  const t = Date.now() - 200;
  await ingest({ ticks: [{ symbol: 'SPYon', timestamp: t, underlyingPrice: '600' }] });
  const { rows } = await api.db.query(`SELECT token_price::text AS token FROM latest_prices WHERE symbol = 'SPYon'`);
  const multiplier = (await api.http.get('/v1/assets/SPYon/market').set('x-api-key', api.keys.read)).body.primaryMarket.sharesMultiplier;
  expect(Number(rows[0].token)).toBeCloseTo(600 * Number(multiplier), 6);
});

test('an older tick does not replace a newer latest price', async () => {
  const before = (await api.db.query(`SELECT observed_at FROM latest_prices WHERE symbol = 'MSFTon'`)).rows[0].observed_at;
  await ingest({ ticks: [{ symbol: 'MSFTon', timestamp: before - 60_000, tokenPrice: '1.5' }] });
  expect((await api.db.query(`SELECT token_price::text AS p FROM latest_prices WHERE symbol = 'MSFTon'`)).rows[0].p).toBe('402.25');
});

test.each([
  [{}, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'MSFTon', timestamp: 1 }] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'MSFTon', timestamp: 1, tokenPrice: 400 }] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'MSFTon', timestamp: 1, tokenPrice: '-1' }] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'MSFTon', timestamp: 1, tokenPrice: '0' }] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'MSFTon', timestamp: 4e12, tokenPrice: '1' }] }, 400, 'INVALID_REQUEST_BODY'],
  [{ ticks: [{ symbol: 'NOPEon', timestamp: 1, tokenPrice: '1' }] }, 404, 'ASSET_NOT_FOUND'],
])('refuses %j', async (body, status, code) => {
  const before = (await api.db.query('SELECT count(*)::int AS n FROM candles')).rows[0].n;
  const response = await ingest(body);
  expect(response.status).toBe(status);
  expect(response.body.code).toBe(code);
  expect((await api.db.query('SELECT count(*)::int AS n FROM candles')).rows[0].n).toBe(before);
});

test('while the simulated feed owns the prices, ticks are refused with PRICES_SIMULATED and nothing is stored', async () => {
  const simulated = await createTestApi({ priceSource: 'simulated' });
  try {
    const before = (await simulated.db.query(`SELECT token_price::text AS p, observed_at FROM latest_prices WHERE symbol = 'AAPLon'`)).rows[0];
    const response = await simulated.http
      .post('/v1/market-data/ticks')
      .set('x-api-key', simulated.keys.admin)
      .send({ ticks: [{ symbol: 'AAPLon', timestamp: Date.now() - 100, tokenPrice: '1.5' }] });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'PRICES_SIMULATED', message: expect.stringContaining('PRICE_SOURCE=external') });
    expect((await simulated.db.query(`SELECT token_price::text AS p, observed_at FROM latest_prices WHERE symbol = 'AAPLon'`)).rows[0]).toEqual(before);
  } finally {
    await simulated.close();
  }
});
