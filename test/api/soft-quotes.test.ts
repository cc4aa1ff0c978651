/** POST /v1/attestations/soft against the real app and PostgreSQL: priced like an attestation, counted against nothing. */
import { newYorkTime } from '../../domain/calendar';
import { createTestApi, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const SATURDAY_NOON = newYorkTime('2026-11-28', '12:00');
const SOLANA_WALLET = 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9';

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
  await api.tradeAt(MONDAY_10AM);
});
afterEach(() => api.close());

const attest = (body: object, key = api.keys.write) => api.http.post('/v1/attestations').set('x-api-key', key).send(body);
const soft = (body: object, key = api.keys.write) => api.http.post('/v1/attestations/soft').set('x-api-key', key).send(body);
const count = async () => (await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestations')).rows[0]!.n;
const setLimit = (symbol: string, session: string, count: number, active: string, perSession = '10000000') =>
  api.db.query('UPDATE session_limits SET max_attestation_count = $3, max_active_notional_value = $4, max_session_notional_value = $5 WHERE symbol = $1 AND session = $2', [
    symbol, session, count, active, perSession,
  ]);

const valid = { symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5' };

describe('soft quotes', () => {
  test('are priced like attestations but carry no id, user, expiry or signature, and count against nothing', async () => {
    await setLimit('AAPLon', 'regular', 1, '1000000');
    const quote = await soft(valid);
    expect(quote.status).toBe(200);
    expect(quote.body).toEqual({
      chainId: '1',
      symbol: 'AAPLon',
      ticker: 'AAPL',
      assetAddress: expect.stringMatching(/^0x/),
      side: '0',
      tokenAmount: '1500000000000000000',
      price: expect.stringMatching(/^\d+$/),
    });
    expect((await soft(valid)).status).toBe(200);
    const attestation = await attest(valid);
    expect(attestation.body.price).toBe(quote.body.price);
    expect(await count()).toBe(1);
  });

  test.each([
    [{ ...valid, tokenAmount: '0' }, 400, 'INVALID_TOKEN_AMOUNT'],
    [{ ...valid, symbol: 'ZZZon' }, 404, 'ASSET_NOT_FOUND'],
  ])('refuses %j', async (body, status, code) => {
    const response = await soft(body);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
  });

  test('ignore fields their schema does not name (a userAddress, an attestation\'s fields) and take the genesis-hash chain id', async () => {
    const plain = await soft(valid);
    expect((await soft({ ...valid, userAddress: SOLANA_WALLET, attestationId: '1', price: '1' })).body).toEqual(plain.body);
    const solana = await soft({ ...valid, chainId: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' });
    expect(solana.status).toBe(200);
    expect(solana.body.chainId).toBe('900');
  });

  test('are refused for a read-only key and when the market is closed', async () => {
    expect((await soft(valid, api.keys.read)).body.code).toBe('READ_ONLY_API_KEY');
    await api.tradeAt(SATURDAY_NOON);
    expect((await soft(valid)).body.code).toBe('MARKET_CLOSED');
  });
});
