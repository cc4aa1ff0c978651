/** GET /v1/limits/trading: a user's real-time headroom, and why trading is restricted when it is. */
import { newYorkTime } from '../../domain/calendar';
import { Decimal } from '../../domain/money';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const SATURDAY_NOON = newYorkTime('2026-11-28', '12:00');

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
  await api.tradeAt(MONDAY_10AM);
  await api.db.query(
    `UPDATE session_limits SET max_attestation_count = 3, max_active_notional_value = 10000, max_session_notional_value = 50000
      WHERE symbol = 'AAPLon' AND session = 'regular'`,
  );
});
afterEach(() => api.close());

const limits = (query: string, key = api.keys.write) => api.http.get(`/v1/limits/trading?${query}`).set('x-api-key', key);
const attest = (notionalValue: string) =>
  api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send({ symbol: 'AAPLon', side: 'buy', notionalValue });

test('an untouched user has the whole session limit', async () => {
  const response = await limits('symbol=AAPLon&side=buy');
  expect(response.status).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.body).toEqual({
    timestamp: MONDAY_10AM,
    symbol: 'AAPLon',
    side: 'buy',
    maxTokens: expect.stringMatching(/^\d+(\.\d{1,18})?$/),
    maxNotionalValue: '10000',
    remainingAttestations: '3',
    isAssetTradingOpen: true,
  });
  const { rows } = await api.db.query<{ p: string }>(`SELECT token_price::text AS p FROM latest_prices WHERE symbol = 'AAPLon'`);
  // maxTokens is the notional at the buy price (mid plus the short spread), rounded down.
  const ask = new Decimal(rows[0]!.p).times('1.001');
  expect(new Decimal(response.body.maxTokens).minus(new Decimal(10000).dividedBy(ask)).abs().toNumber()).toBeLessThan(1e-6);
});

test('attestations use up the headroom in real time, down to MAX_ATTESTATIONS', async () => {
  await attest('4000');
  const after = (await limits('symbol=AAPLon&side=buy')).body;
  expect(after).toMatchObject({ remainingAttestations: '2', isAssetTradingOpen: true });
  // The attested notional is the token amount (rounded down) at the price, so a hair under 4000.
  expect(new Decimal(after.maxNotionalValue).minus(6000).abs().toNumber()).toBeLessThan(1e-12);
  await attest('1000');
  await attest('1000');
  const full = (await limits('symbol=AAPLon&side=sell')).body;
  expect(full).toMatchObject({ remainingAttestations: '0', isAssetTradingOpen: false, maxTokens: '0' });
  expect(full.reason).toEqual({ code: 'MAX_ATTESTATIONS', message: expect.any(String), documentation: `${TEST_BASE_URL}/docs/errors#max_attestations` });
  // Other users still have their own limits.
  expect((await limits('symbol=AAPLon&side=buy', api.keys.admin)).body.remainingAttestations).toBe('3');
});

test('exhausted notional is MAX_LIMIT_REACHED', async () => {
  await attest('10000');
  const body = (await limits('symbol=AAPLon&side=buy')).body;
  expect(body).toMatchObject({ isAssetTradingOpen: false, maxNotionalValue: '0', reason: { code: 'MAX_LIMIT_REACHED' } });
});

test.each([
  ['the market is closed', async () => api.tradeAt(SATURDAY_NOON), 'MARKET_CLOSED'],
  ['the market is paused', async () => void (await api.http.post('/v1/status/market/pause').set('x-api-key', api.keys.admin).send({ reason: 'halt' })), 'MARKET_PAUSED'],
  ['the market is in the transition pause before the close', async () => api.tradeAt(newYorkTime('2026-11-23', '15:59')), 'MARKET_PAUSED'],
  ['the asset is paused', async () => void (await api.http.post('/v1/status/assets/AAPLon/pause').set('x-api-key', api.keys.admin).send({ reason: 'news' })), 'ASSET_PAUSED'],
  ['the price is stale', async () => api.setNow(MONDAY_10AM + 3_600_000), 'PRICE_UNAVAILABLE'],
])('closed when %s', async (_name, arrange, code) => {
  await arrange();
  const body = (await limits('symbol=AAPLon&side=buy')).body;
  expect(body).toMatchObject({ isAssetTradingOpen: false, maxTokens: '0', maxNotionalValue: '0', reason: { code } });
});

test('a limited asset stays open with smaller orders and says why', async () => {
  await api.http.post('/v1/status/assets/AAPLon/limit').set('x-api-key', api.keys.admin).send({ reason: 'volatility' });
  const body = (await limits('symbol=AAPLon&side=buy')).body;
  expect(body).toMatchObject({ isAssetTradingOpen: true, maxNotionalValue: '10000', reason: { code: 'ASSET_LIMITED', documentation: `${TEST_BASE_URL}/docs/errors#asset_limited` } });
  await api.db.query(`UPDATE session_limits SET max_active_notional_value = 100000 WHERE symbol = 'AAPLon'`);
  // The limited order size (10 000 by default) caps the headroom.
  expect((await limits('symbol=AAPLon&side=buy')).body.maxNotionalValue).toBe('10000');
});

test('a read-only key sees the headroom of a user with nothing outstanding', async () => {
  await attest('4000');
  expect((await limits('symbol=AAPLon&side=buy', api.keys.read)).body.maxNotionalValue).toBe('10000');
});

test.each([
  ['side=buy', 400, 'MISSING_SYMBOL'],
  ['symbol=AAPLon', 400, 'MISSING_SIDE'],
  ['symbol=AAPLon&side=hold', 400, 'INVALID_SIDE'],
  ['symbol=xx&side=buy', 400, 'INVALID_SYMBOL'],
  ['symbol=ZZZon&side=buy', 404, 'ASSET_NOT_FOUND'],
])('%s → %i %s', async (query, status, code) => {
  const response = await limits(query);
  expect(response.status).toBe(status);
  expect(response.body.code).toBe(code);
});
