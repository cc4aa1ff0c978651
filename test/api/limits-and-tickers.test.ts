/** Session limits (read and operator edit) and tickers. */
import { CATALOGUE } from '../../domain/catalogue';
import { createTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(() => api.close());

const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.read);
const SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'];

describe('GET /v1/limits/session', () => {
  test('one entry per asset with five session blocks of strings', async () => {
    const response = await get('/v1/limits/session');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
    const { limits, timestamp } = response.body[0];
    expect(typeof timestamp).toBe('number');
    expect(limits).toHaveLength(CATALOGUE.length);
    for (const entry of limits) {
      for (const session of SESSIONS) {
        expect(entry[session]).toEqual({ tradable: expect.any(Boolean), maxAttestationCount: expect.stringMatching(/^\d+$/), maxActiveNotionalValue: expect.stringMatching(/^\d+(\.\d+)?$/) });
      }
    }
  });

  test('off-hours is tradable only for the assets that trade off-hours; overnight only where listed', async () => {
    const { limits } = (await get('/v1/limits/session')).body[0];
    for (const asset of CATALOGUE) {
      const entry = limits.find((candidate: { symbol: string }) => candidate.symbol === asset.symbol);
      expect(entry.offhours.tradable).toBe(asset.tradableOffhours);
      expect(entry.overnight.tradable).toBe(asset.tradableSessions.includes('overnight'));
    }
    expect(CATALOGUE.filter((asset) => asset.tradableOffhours).length).toBeLessThan(CATALOGUE.length / 2);
  });

  test('?symbol= answers the array holding one object whose limits are that asset\'s entry alone', async () => {
    const all = (await get('/v1/limits/session')).body[0].limits;
    const response = await get('/v1/limits/session?symbol=NVDAon');
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ limits: [all.find((entry: { symbol: string }) => entry.symbol === 'NVDAon')], timestamp: expect.any(Number) }]);
  });

  test.each([
    ['ZZZZon', 404, 'ASSET_NOT_FOUND'],
    ['AAPL', 400, 'INVALID_SYMBOL'],
  ])('?symbol=%s → %i %s', async (symbol, status, code) => {
    const response = await get(`/v1/limits/session?symbol=${symbol}`);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });

  test('an operator edit is stored and answered at once', async () => {
    await get('/v1/limits/session');
    const body = { tradable: true, maxAttestationCount: '3', maxActiveNotionalValue: '12345.5' };
    const response = await api.http.put('/v1/limits/session/AAPLon/overnight').set('x-api-key', api.keys.admin).send(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ symbol: 'AAPLon', session: 'overnight', ...body });
    const { rows } = await api.db.query(`SELECT max_attestation_count, max_active_notional_value::text AS v FROM session_limits WHERE symbol = 'AAPLon' AND session = 'overnight'`);
    expect(rows[0]).toEqual({ max_attestation_count: 3, v: '12345.5' });
    const { limits } = (await get('/v1/limits/session')).body[0];
    expect(limits.find((entry: { symbol: string }) => entry.symbol === 'AAPLon').overnight).toEqual(body);
  });

  test.each([
    ['/v1/limits/session/AAPLon/lunch', { tradable: true, maxAttestationCount: '1', maxActiveNotionalValue: '1' }, 'INVALID_PARAMETER'],
    ['/v1/limits/session/AAPLon/regular', { tradable: 'yes', maxAttestationCount: '1', maxActiveNotionalValue: '1' }, 'INVALID_REQUEST_BODY'],
    ['/v1/limits/session/AAPLon/regular', { tradable: true, maxAttestationCount: 1, maxActiveNotionalValue: '1' }, 'INVALID_REQUEST_BODY'],
    ['/v1/limits/session/AAPLon/regular', { tradable: true, maxAttestationCount: '-1', maxActiveNotionalValue: '1' }, 'INVALID_REQUEST_BODY'],
    ['/v1/limits/session/AAPLon/regular', { tradable: true, maxAttestationCount: '1', maxActiveNotionalValue: '1e5' }, 'INVALID_REQUEST_BODY'],
  ])('refuses %s %j', async (path, body, code) => {
    const response = await api.http.put(path).set('x-api-key', api.keys.admin).send(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
  });
});

describe('GET /v1/tickers', () => {
  test('every token against the settlement token, numbers for price and volumes', async () => {
    const response = await get('/v1/tickers');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(CATALOGUE.length);
    for (const ticker of response.body) {
      expect(ticker).toEqual({
        tickerId: `${ticker.baseCurrency}_USDon`,
        baseCurrency: expect.stringMatching(/on$/),
        targetCurrency: 'USDon',
        lastPrice: expect.any(Number),
        baseVolume: expect.any(Number),
        targetVolume: expect.any(Number),
      });
      expect(ticker.lastPrice).toBeGreaterThan(0);
    }
  });
});
