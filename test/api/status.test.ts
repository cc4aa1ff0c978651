/** Market and asset statuses: the calendar at pinned times, and operator pauses, limits and scheduled events. */
import { overviewPage } from '../../console/pages/overview';
import { newYorkTime } from '../../domain/calendar';
import { createTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
});
afterEach(() => api.close());

const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.read);
const admin = (path: string, body?: object) => api.http.post(path).set('x-api-key', api.keys.admin).send(body);

describe('GET /v1/status/market', () => {
  const iso = (date: string, time: string): string => new Date(newYorkTime(date, time)).toISOString();
  const closed = { code: 'MARKET_CLOSED', message: expect.any(String), documentation: expect.stringMatching(/\/docs\/errors#market_closed$/) };
  const paused = { code: 'MARKET_PAUSED', message: expect.any(String), documentation: expect.stringMatching(/\/docs\/errors#market_paused$/) };
  // The weekend after Thanksgiving 2026: offhours from Friday's early close (17:05) to Sunday 19:55.
  const weekend = { nextOpen: iso('2026-11-27', '17:05'), nextClose: iso('2026-11-29', '19:55') };
  const nextWeekend = { nextOpen: iso('2026-12-04', '20:05'), nextClose: iso('2026-12-06', '19:55') };
  // Thanksgiving (Thursday 2026-11-26): offhours from Wednesday 20:05 to Thursday 19:55.
  const thanksgiving = { nextOpen: iso('2026-11-25', '20:05'), nextClose: iso('2026-11-26', '19:55') };

  test.each([
    ['Monday 03:54, overnight', '2026-11-23', '03:54', 'overnight', true, 'premarket', '04:01', '03:55', null, thanksgiving],
    ['Monday 03:55, the pause before premarket', '2026-11-23', '03:55', 'paused', false, 'premarket', '04:01', '09:29', paused, thanksgiving],
    ['Monday 04:01, premarket', '2026-11-23', '04:01', 'premarket', true, 'regular', '09:31', '09:29', null, thanksgiving],
    ['Monday 09:29, the pause before the open', '2026-11-23', '09:29', 'paused', false, 'regular', '09:31', '15:59', paused, thanksgiving],
    ['Monday 09:30, still paused', '2026-11-23', '09:30', 'paused', false, 'regular', '09:31', '15:59', paused, thanksgiving],
    ['Monday 09:31, regular', '2026-11-23', '09:31', 'regular', true, 'postmarket', '16:01', '15:59', null, thanksgiving],
    ['Monday 15:59, the pause at the close', '2026-11-23', '15:59', 'paused', false, 'postmarket', '16:01', '19:59', paused, thanksgiving],
    ['Monday 16:01, postmarket', '2026-11-23', '16:01', 'postmarket', true, 'overnight', '20:05', '19:59', null, thanksgiving],
    ['Monday 19:59, the pause before overnight', '2026-11-23', '19:59', 'paused', false, 'overnight', '20:05', '03:55+1', paused, thanksgiving],
    ['Monday 20:05, overnight', '2026-11-23', '20:05', 'overnight', true, 'premarket', '04:01+1', '03:55+1', null, thanksgiving],
  ] as const)('%s', async (_name, date, time, status, isOpen, next, nextOpen, nextClose, reason, offhours) => {
    const at = (hhmm: string): string => (hhmm.endsWith('+1') ? iso('2026-11-24', hhmm.slice(0, 5)) : iso(date, hhmm));
    api.setNow(newYorkTime(date, time));
    const response = await get('/v1/status/market');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      timestamp: new Date(newYorkTime(date, time)).toISOString(),
      isOpen,
      marketStatus: status,
      nextOpenSession: next,
      nextOpen: at(nextOpen),
      nextClose: at(nextClose),
      offhours: { isOpen: false, ...offhours },
      reason,
    });
  });

  test.each([
    ['Thanksgiving', '2026-11-26', '11:00', 'closed', closed, 'overnight', iso('2026-11-26', '20:05'), true, thanksgiving.nextClose, weekend.nextOpen],
    ['Thanksgiving 19:55, the pause before the overnight', '2026-11-26', '19:55', 'paused', paused, 'overnight', iso('2026-11-26', '20:05'), false, weekend.nextClose, weekend.nextOpen],
    ['the early close: 12:59 is a pause', '2026-11-27', '12:59', 'paused', paused, 'postmarket', iso('2026-11-27', '13:01'), false, weekend.nextClose, weekend.nextOpen],
    ['the early close: 16:59 is a pause', '2026-11-27', '16:59', 'paused', paused, 'overnight', iso('2026-11-29', '20:05'), false, weekend.nextClose, weekend.nextOpen],
    ['after the early close, closed with offhours open', '2026-11-27', '17:05', 'closed', closed, 'overnight', iso('2026-11-29', '20:05'), true, weekend.nextClose, nextWeekend.nextOpen],
    ['a Saturday', '2026-11-28', '12:00', 'closed', closed, 'overnight', iso('2026-11-29', '20:05'), true, weekend.nextClose, nextWeekend.nextOpen],
    ['Sunday 19:55, the pause before the overnight', '2026-11-29', '19:55', 'paused', paused, 'overnight', iso('2026-11-29', '20:05'), false, nextWeekend.nextClose, nextWeekend.nextOpen],
  ] as const)('%s: %s', async (_name, date, time, status, reason, next, nextOpen, offhoursOpen, offhoursClose, offhoursNextOpen) => {
    api.setNow(newYorkTime(date, time));
    const { body } = await get('/v1/status/market');
    expect(body).toMatchObject({ isOpen: false, marketStatus: status, reason, nextOpenSession: next, nextOpen });
    expect(body.offhours).toEqual({ isOpen: offhoursOpen, nextOpen: offhoursNextOpen, nextClose: offhoursClose });
  });

  test("the console's overview shows the status clients read: a transition pause, the next session, the off-hours window", async () => {
    const now = newYorkTime('2026-11-23', '09:30');
    const text = (await overviewPage({ db: api.db, now })).text.replace(/<[^>]+>/g, '');
    expect(text).toContain(`Clients read paused Market paused between sessions until 09:31 ET — next regular ${iso('2026-11-23', '09:31').replace('T', ' ').replace('.000Z', 'Z')}`);
    expect(text).toContain(`off-hours window closed, opens ${iso('2026-11-25', '20:05').replace('T', ' ').replace('.000Z', 'Z')}`);
  });

  test('Thanksgiving names the holiday', async () => {
    api.setNow(newYorkTime('2026-11-26', '11:00'));
    expect((await get('/v1/status/market')).body.reason.message).toContain('Thanksgiving');
  });

  test('an operator pause shows at once and survives in the database; resume lifts it', async () => {
    api.setNow(newYorkTime('2026-11-23', '10:00'));
    await get('/v1/status/market');
    const paused = await admin('/v1/status/market/pause', { reason: 'exchange outage' });
    expect(paused.status).toBe(200);
    expect((await api.db.query('SELECT paused, reason FROM market_state')).rows[0]).toEqual({ paused: true, reason: 'exchange outage' });
    const status = (await get('/v1/status/market')).body;
    expect(status).toMatchObject({ isOpen: false, marketStatus: 'paused', reason: { code: 'MARKET_PAUSED', message: 'exchange outage' } });
    expect(status.reason.documentation).toMatch(/\/docs\/errors#market_paused$/);

    expect((await admin('/v1/status/market/resume')).status).toBe(200);
    expect((await get('/v1/status/market')).body).toMatchObject({ isOpen: true, marketStatus: 'regular', reason: null });
  });

  test.each([
    [{}, 'reason'],
    [{ reason: '' }, 'reason'],
    [{ reason: 'x', extra: 1 }, 'extra'],
  ])('a pause without a proper reason is refused: %j', async (body, field) => {
    const response = await admin('/v1/status/market/pause', body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_REQUEST_BODY');
    expect(response.body.message).toContain(field);
    expect((await api.db.query('SELECT paused FROM market_state')).rows[0].paused).toBe(false);
  });
});

describe('asset statuses', () => {
  // A week without a catalogue dividend's pause ahead (METAon's was the evening before), so the lists hold only
  // what the tests make; test/api/dividend-pauses.test.ts tries those.
  const QUIET_MONDAY = newYorkTime('2026-11-23', '10:00');
  beforeEach(() => api.setNow(QUIET_MONDAY));

  test('pausing an asset lists it as active, unscheduled, ASSET_PAUSED; resuming ends it', async () => {
    const created = await admin('/v1/status/assets/TSLAon/pause', { reason: 'news pending' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ symbol: 'TSLAon', status: 'active', type: 'unscheduled', reason: { code: 'ASSET_PAUSED', message: 'news pending' } });
    // Open-ended: no `end`, as the reference's schema has it (a string when present, never null).
    expect(created.body).not.toHaveProperty('end');
    expect((await get('/v1/status/assets')).body).toEqual([created.body]);

    const again = await admin('/v1/status/assets/TSLAon/pause', { reason: 'news pending' });
    expect(again.status).toBe(200);
    expect(again.body.eventId).toBe(created.body.eventId);
    expect((await api.db.query('SELECT count(*)::int AS n FROM asset_status_events')).rows[0].n).toBe(1);

    api.setNow(QUIET_MONDAY + 60_000);
    const resumed = await admin('/v1/status/assets/TSLAon/resume');
    expect(resumed.body).toEqual({ ended: 1, statuses: [] });
    expect((await get('/v1/status/assets')).body).toEqual([]);
  });

  test('a pause resumed within the millisecond it began ends (it was never in effect), and leaves no status behind', async () => {
    expect((await admin('/v1/status/assets/TSLAon/pause', { reason: 'fat finger' })).status).toBe(201);
    const resumed = await admin('/v1/status/assets/TSLAon/resume');
    expect([resumed.status, resumed.body]).toEqual([200, { ended: 1, statuses: [] }]);
    expect((await get('/v1/status/assets')).body).toEqual([]);
    expect((await api.db.query('SELECT count(*)::int AS n FROM asset_status_events')).rows[0].n).toBe(0);
  });

  test('limiting an asset is ASSET_LIMITED and can be filtered by symbol', async () => {
    const limited = await admin('/v1/status/assets/NVDAon/limit', { reason: 'volatility' });
    expect(limited.status).toBe(201);
    const again = await admin('/v1/status/assets/NVDAon/limit', { reason: 'volatility' });
    expect([again.status, again.body.eventId]).toEqual([200, limited.body.eventId]);
    await admin('/v1/status/assets/AAPLon/pause', { reason: 'maintenance' });
    const nvda = (await get('/v1/status/assets?symbol=NVDAon')).body;
    expect(nvda).toHaveLength(1);
    expect(nvda[0].reason.code).toBe('ASSET_LIMITED');
    expect((await get('/v1/status/assets')).body).toHaveLength(2);
    api.setNow(QUIET_MONDAY + 60_000);
    expect((await admin('/v1/status/assets/NVDAon/unlimit')).body.ended).toBe(1);
  });

  test('a scheduled event is upcoming, then active, then gone after its end', async () => {
    const start = QUIET_MONDAY + 3_600_000;
    const end = start + 3_600_000;
    const created = await admin('/v1/status/assets/events', {
      symbol: 'AAPLon',
      code: 'ASSET_PAUSED',
      reason: 'stock_split',
      start,
      end,
      updateSharesMultiplier: true,
    });
    expect(created.status).toBe(201);
    // As the reference issuer answers it: ISO-8601 times, the reason with its documentation.
    expect(created.body).toMatchObject({
      status: 'upcoming',
      type: 'scheduled',
      reason: { code: 'ASSET_PAUSED', message: 'stock_split', documentation: expect.stringMatching(/\/docs\/errors#asset_paused$/) },
      start: new Date(start).toISOString(),
      end: new Date(end).toISOString(),
      updateSharesMultiplier: true,
    });
    api.setNow(start + 1);
    expect((await get('/v1/status/assets')).body[0].status).toBe('active');
    api.setNow(end);
    expect((await get('/v1/status/assets')).body).toEqual([]);

    api.setNow(QUIET_MONDAY);
    const deleted = await api.http.delete(`/v1/status/assets/events/${created.body.eventId}`).set('x-api-key', api.keys.admin);
    expect(deleted.status).toBe(204);
    expect((await api.db.query('SELECT count(*)::int AS n FROM asset_status_events')).rows[0].n).toBe(0);
  });

  test.each([
    [{ symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'party', start: 4e12, end: 4.1e12 }, 400, 'INVALID_REQUEST_BODY'],
    [{ symbol: 'AAPLon', code: 'ASSET_GONE', reason: 'merger', start: 4e12, end: 4.1e12 }, 400, 'INVALID_REQUEST_BODY'],
    [{ symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'merger', start: 4.1e12, end: 4e12 }, 400, 'INVALID_REQUEST_BODY'],
    [{ symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'merger', start: 1e12, end: 1.1e12 }, 400, 'INVALID_REQUEST_BODY'],
    [{ symbol: 'ZZZon', code: 'ASSET_PAUSED', reason: 'merger', start: 4e12, end: 4.1e12 }, 404, 'ASSET_NOT_FOUND'],
    [{ symbol: 'ZZ', code: 'ASSET_PAUSED', reason: 'merger', start: 4e12, end: 4.1e12 }, 400, 'INVALID_SYMBOL'],
  ])('refuses a bad scheduled event %j', async (body, status, code) => {
    const response = await admin('/v1/status/assets/events', body);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
    expect((await api.db.query('SELECT count(*)::int AS n FROM asset_status_events')).rows[0].n).toBe(0);
  });

  test('deleting an unknown event is 404 EVENT_NOT_FOUND', async () => {
    const response = await api.http.delete('/v1/status/assets/events/evt_nope').set('x-api-key', api.keys.admin);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('EVENT_NOT_FOUND');
  });

  test('pausing an unknown asset is 404', async () => {
    expect((await admin('/v1/status/assets/ZZZon/pause', { reason: 'x' })).status).toBe(404);
  });

  test('a bad symbol filter is refused', async () => {
    expect((await get('/v1/status/assets?symbol=xx')).body.code).toBe('INVALID_SYMBOL');
  });
});
