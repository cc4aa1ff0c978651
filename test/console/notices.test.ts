/**
 * The notice on top of a console page says only what the console itself did: the outcome of the signed-in operator's
 * own action, read from its audit entry. Text in the address (`?error=…`, `?done=…`, a link anyone can send an
 * operator) is never shown, nor another key's audit entry.
 */
import { createApiKey } from '../../db/queries/api-keys';
import { createTestApi, type TestApi } from '../support/api';

let api: TestApi;
let cookie: string;
let csrf: string;

const ATTACKER_TEXT = 'Your session is compromised: call +1 555 0100 now';

beforeAll(async () => {
  api = await createTestApi();
  const signIn = await api.http.post('/console/sign-in').type('form').send({ key: api.keys.admin });
  expect(signIn.status).toBe(303);
  cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
  const overview = await get('/console');
  csrf = /name="csrf" value="([^"]+)"/.exec(overview.text)![1]!;
});
afterAll(() => api.close());

const get = (route: string) => api.http.get(route).set('cookie', cookie);
const act = (action: string, fields: Record<string, string>) =>
  api.http.post(`/console/actions/${action}`).set('cookie', cookie).type('form').send({ csrf, ...fields });
const noticeOf = (page: string) => /<p class="notice notice-(done|error)" role="status">([^<]*)<\/p>/.exec(page)?.slice(1, 3);

test.each([
  ['/console?error=', 'error'],
  ['/console?done=', 'done'],
  ['/console/controls?error=', 'error'],
])('%s<text> shows no notice', async (route) => {
  const page = await get(`${route}${encodeURIComponent(ATTACKER_TEXT)}`);
  expect(page.status).toBe(200);
  expect(page.text).not.toContain('Your session is compromised');
  expect(noticeOf(page.text)).toBeUndefined();
});

test("an action's outcome is shown from its audit entry, done or refused", async () => {
  const paused = await act('market-pause', { reason: 'notice drill' });
  expect(paused.status).toBe(303);
  expect(paused.headers.location).toMatch(/^\/console\/controls\?notice=\d+$/);
  expect(noticeOf((await get(paused.headers.location!)).text)).toEqual(['done', 'The market is paused']);

  const refused = await act('market-pause', {});
  expect(refused.headers.location).toMatch(/^\/console\/controls\?notice=\d+$/);
  expect(noticeOf((await get(refused.headers.location!)).text)).toEqual(['error', 'Refused: no reason given']);
  await act('market-resume', {});
});

test("another key's audit entry is not shown as a notice", async () => {
  const other = await createApiKey(api.db, { name: 'another operator', scope: 'admin' });
  const signIn = await api.http.post('/console/sign-in').type('form').send({ key: other.secret });
  const otherCookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
  const otherCsrf = /name="csrf" value="([^"]+)"/.exec((await api.http.get('/console').set('cookie', otherCookie)).text)![1]!;
  const theirs = await api.http.post('/console/actions/market-resume').set('cookie', otherCookie).type('form').send({ csrf: otherCsrf });
  const route = theirs.headers.location!;
  expect(noticeOf((await api.http.get(route).set('cookie', otherCookie)).text)).toEqual(['done', 'The market is resumed']);
  expect(noticeOf((await get(route)).text)).toBeUndefined();
});
