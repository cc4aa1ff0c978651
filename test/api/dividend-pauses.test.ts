/**
 * The reference issuer's scheduled asset pauses where the catalogue has the events: an asset does not trade from 19:50
 * to 20:10 New York time on the day before each of its dividends' ex-dates. Tried with a real catalogue dividend
 * (GOOGLon's, ex-date Thursday 2026-12-10: paused Wednesday 2026-12-09 19:50–20:10 EST, 00:50–01:10 UTC), the clock
 * pinned before, at the edges of, inside and after the window: GET /v1/status/assets lists it, and attestations, soft
 * quotes, trading limits, the depth stream, hedges and the console treat the asset as paused while it runs. Earnings
 * limits, which the catalogue has no dates for, are an operator's scheduled ASSET_LIMITED window.
 */
import { newYorkTime } from '../../domain/calendar';
import { listAssets } from '../../db/queries/assets';
import { hedgeHold } from '../../db/queries/reserves';
import { softQuoteDepth } from '../../streams/depth';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const PAUSE_START = newYorkTime('2026-12-09', '19:50');
const PAUSE_END = newYorkTime('2026-12-09', '20:10');
const DAY_MS = 86_400_000;
const DIVIDEND_PAUSE = {
  symbol: 'GOOGLon',
  type: 'scheduled',
  reason: { code: 'ASSET_PAUSED', message: 'cash_dividend', documentation: `${TEST_BASE_URL}/docs/errors#asset_paused` },
  start: '2026-12-10T00:50:00.000Z',
  end: '2026-12-10T01:10:00.000Z',
  eventId: 'div_GOOGLon_2026-12-10',
  updateSharesMultiplier: false,
};

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
});
afterEach(() => api.close());

const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.write);
const attest = (symbol: string) => api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send({ symbol, side: 'buy', tokenAmount: '1' });
const soft = (symbol: string) => api.http.post('/v1/attestations/soft').set('x-api-key', api.keys.write).send({ symbol, side: 'sell', tokenAmount: '1' });
const statusesAt = async (now: number, symbol = 'GOOGLon') => {
  api.setNow(now);
  const response = await get(`/v1/status/assets?symbol=${symbol}`);
  expect(response.status).toBe(200);
  return response.body;
};

describe('GET /v1/status/assets', () => {
  test('lists the pause before the ex-date from a week ahead as upcoming, active from 19:50, gone at 20:10', async () => {
    expect(await statusesAt(PAUSE_START - 7 * DAY_MS - 1)).toEqual([]);
    expect(await statusesAt(PAUSE_START - 7 * DAY_MS)).toEqual([{ ...DIVIDEND_PAUSE, status: 'upcoming' }]);
    expect(await statusesAt(PAUSE_START - 1)).toEqual([{ ...DIVIDEND_PAUSE, status: 'upcoming' }]);
    expect(await statusesAt(PAUSE_START)).toEqual([{ ...DIVIDEND_PAUSE, status: 'active' }]);
    expect(await statusesAt(PAUSE_END - 1)).toEqual([{ ...DIVIDEND_PAUSE, status: 'active' }]);
    expect(await statusesAt(PAUSE_END)).toEqual([]);
  });

  test('in summer time too it is 19:50–20:10 New York time: 23:50–00:10 UTC', async () => {
    // AAPLon's ex-date Monday 2027-05-10: the calendar day before is a Sunday, the overnight session opening at 20:00.
    const [pause] = await statusesAt(newYorkTime('2027-05-09', '19:50'), 'AAPLon');
    expect(pause).toMatchObject({ status: 'active', start: '2027-05-09T23:50:00.000Z', end: '2027-05-10T00:10:00.000Z', eventId: 'div_AAPLon_2027-05-10' });
  });

  test('every asset: the pauses running and those starting within a week, none that ended', async () => {
    api.setNow(PAUSE_START);
    const all = (await get('/v1/status/assets')).body as { symbol: string; status: string; start: string; reason: { message: string } }[];
    // NVDAon's (ex-date 12-07) ended on Sunday; QQQon's (12-18) starts in eight days.
    expect(all.map((event) => [event.symbol, event.status, event.start])).toEqual([
      ['GOOGLon', 'active', '2026-12-10T00:50:00.000Z'],
      ['VALEon', 'active', '2026-12-10T00:50:00.000Z'],
      ['KOon', 'upcoming', '2026-12-14T00:50:00.000Z'],
      ['SPYon', 'upcoming', '2026-12-15T00:50:00.000Z'],
    ]);
    expect(new Set(all.map((event) => event.reason.message))).toEqual(new Set(['cash_dividend']));
  });

  test('an operator sees the pause but cannot delete it: 409 EVENT_NOT_DELETABLE, and it stays', async () => {
    api.setNow(PAUSE_START);
    const deleted = await api.http.delete(`/v1/status/assets/events/${DIVIDEND_PAUSE.eventId}`).set('x-api-key', api.keys.admin);
    expect(deleted.status).toBe(409);
    expect(deleted.body).toEqual({ code: 'EVENT_NOT_DELETABLE', message: expect.stringContaining('dividend'), documentation: `${TEST_BASE_URL}/docs/errors#event_not_deletable` });
    expect(await statusesAt(PAUSE_START)).toEqual([{ ...DIVIDEND_PAUSE, status: 'active' }]);
    // Past its end it is not an event any more.
    api.setNow(PAUSE_END);
    const after = await api.http.delete(`/v1/status/assets/events/${DIVIDEND_PAUSE.eventId}`).set('x-api-key', api.keys.admin);
    expect([after.status, after.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
  });

  test("an operator's resume ends the operator's pause, not the dividend's", async () => {
    api.setNow(PAUSE_START);
    await api.http.post('/v1/status/assets/GOOGLon/pause').set('x-api-key', api.keys.admin).send({ reason: 'news' });
    api.setNow(PAUSE_START + 60_000);
    const resumed = await api.http.post('/v1/status/assets/GOOGLon/resume').set('x-api-key', api.keys.admin);
    expect(resumed.body).toEqual({ ended: 1, statuses: [{ ...DIVIDEND_PAUSE, status: 'active' }] });
    expect((await attest('GOOGLon')).body.code).toBe('ASSET_PAUSED');
  });
});

describe('while the pause runs the asset does not trade', () => {
  test.each([
    ['at 19:49, in the postmarket session', 200, PAUSE_START - 60_000],
    ['at 19:50', 403, PAUSE_START],
    ['at 20:07, the overnight session of the ex-date', 403, newYorkTime('2026-12-09', '20:07')],
    ['a millisecond before 20:10', 403, PAUSE_END - 1],
    ['at 20:10', 200, PAUSE_END],
  ])('%s: attestation and soft quote %i', async (_name, status, now) => {
    await api.tradeAt(now);
    for (const response of [await attest('GOOGLon'), await soft('GOOGLon')]) {
      expect(response.status).toBe(status);
      if (status === 403) {
        expect(response.body).toEqual({ code: 'ASSET_PAUSED', message: expect.stringContaining('cash_dividend'), documentation: `${TEST_BASE_URL}/docs/errors#asset_paused` });
      }
    }
    const { rows } = await api.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM attestations WHERE symbol = 'GOOGLon'`);
    expect(rows[0]!.n).toBe(status === 200 ? 1 : 0);
  });

  test('other assets trade meanwhile', async () => {
    await api.tradeAt(PAUSE_START);
    expect((await attest('MSFTon')).status).toBe(200);
  });

  test('trading limits are closed with ASSET_PAUSED during the window only', async () => {
    const limits = async (now: number) => {
      await api.tradeAt(now);
      return (await get('/v1/limits/trading?symbol=GOOGLon&side=buy')).body;
    };
    expect(await limits(PAUSE_START)).toMatchObject({ isAssetTradingOpen: false, maxTokens: '0', maxNotionalValue: '0', reason: { code: 'ASSET_PAUSED', message: expect.stringContaining('cash_dividend') } });
    expect(await limits(PAUSE_END)).toMatchObject({ isAssetTradingOpen: true });
    expect((await limits(PAUSE_END)).reason).toBeUndefined();
  });

  test("the depth stream's ladder is empty with the ASSET_PAUSED error, and full again after", async () => {
    const googl = (await listAssets(api.db)).find((asset) => asset.symbol === 'GOOGLon')!;
    const policy = { maxPriceAgeMs: 60_000, limitedMaxOrderNotional: '10000' };
    await api.tradeAt(PAUSE_START);
    expect(await softQuoteDepth(api.db, googl, PAUSE_START, policy)).toMatchObject({ error: expect.stringMatching(/^ASSET_PAUSED: .*cash_dividend/), bids: [], asks: [] });
    await api.tradeAt(PAUSE_END);
    const after = await softQuoteDepth(api.db, googl, PAUSE_END, policy);
    expect(after.error).toBe('');
    expect(after.asks).toHaveLength(5);
  });

  test('hedges of the underlying wait for the end of the window', async () => {
    expect(await hedgeHold(api.db, 'GOOGL', PAUSE_START - 1)).toBeUndefined();
    expect(await hedgeHold(api.db, 'GOOGL', PAUSE_START)).toBe('GOOGL is paused: cash_dividend');
    expect(await hedgeHold(api.db, 'GOOGL', PAUSE_END)).toBeUndefined();
  });

  test('the console lists it as the catalogue\'s, without a delete button', async () => {
    api.setNow(PAUSE_START);
    const signIn = await api.http.post('/console/sign-in').type('form').send({ key: api.keys.admin });
    const cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
    const page = (await api.http.get('/console/controls').set('cookie', cookie)).text;
    const row = page.split('<tr>').find((cells) => cells.includes('GOOGLon'));
    expect(row).toContain('cash_dividend');
    expect(row).toContain("the catalogue's dividend");
    expect(row).not.toContain('event-delete');
  });
});

describe('earnings', () => {
  test('the catalogue has no earnings dates: an operator schedules an ASSET_LIMITED earnings window, and the asset trades smaller orders, over them 400 MAX_LIMIT_REACHED', async () => {
    const now = newYorkTime('2026-11-23', '10:00');
    await api.tradeAt(now);
    const window = { symbol: 'AAPLon', code: 'ASSET_LIMITED', reason: 'earnings', start: now + 60_000, end: now + 3_600_000 };
    const created = await api.http.post('/v1/status/assets/events').set('x-api-key', api.keys.admin).send(window);
    expect(created.body).toMatchObject({ status: 'upcoming', type: 'scheduled', reason: { code: 'ASSET_LIMITED', message: 'earnings' } });
    const order = (notionalValue: string) => api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send({ symbol: 'AAPLon', side: 'buy', notionalValue });
    expect((await order('20000')).status).toBe(200);

    await api.tradeAt(now + 60_000);
    expect((await statusesAt(now + 60_000, 'AAPLon'))[0]).toMatchObject({ status: 'active', reason: { code: 'ASSET_LIMITED', message: 'earnings' } });
    const over = await order('20000');
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: 'MAX_LIMIT_REACHED', message: expect.stringContaining('limited') });
    expect((await order('5000')).status).toBe(200);
    expect((await get('/v1/limits/trading?symbol=AAPLon&side=buy')).body).toMatchObject({ isAssetTradingOpen: true, reason: { code: 'ASSET_LIMITED' } });
  });
});
