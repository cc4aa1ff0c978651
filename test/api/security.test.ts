/** Authentication and scopes on every route: missing, unknown and revoked keys, and scopes too low. */
import { revokeApiKey, createApiKey } from '../../db/queries/api-keys';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';
import { ROUTES, type RouteCase } from './routes';

let api: TestApi;
let revoked: string;

beforeAll(async () => {
  api = await createTestApi();
  const created = await createApiKey(api.db, { name: 'to revoke', scope: 'admin' });
  await revokeApiKey(api.db, created.key.id);
  revoked = created.secret;
});
afterAll(() => api.close());

function send(route: RouteCase, key?: string) {
  let call = api.http[route.method](route.path);
  if (key !== undefined) call = call.set('x-api-key', key);
  return route.body === undefined ? call : call.send(route.body as object);
}

const label = (route: RouteCase) => `${route.method.toUpperCase()} ${route.path}`;

describe.each(ROUTES.map((route) => [label(route), route] as const))('%s', (_name, route) => {
  test.each([
    ['no key', undefined, 'MISSING_API_KEY'],
    ['an empty key', '', 'MISSING_API_KEY'],
    ['an unknown key', 'isk_read_not-a-real-key', 'INVALID_API_KEY'],
  ])('refuses %s with 401 %s', async (_case, key, code) => {
    const response = await send(route, key);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      code,
      message: expect.any(String),
      documentation: `${TEST_BASE_URL}/docs/errors#${code.toLowerCase()}`,
    });
  });

  test('refuses a revoked key with 401 INVALID_API_KEY', async () => {
    const response = await send(route, revoked);
    expect([response.status, response.body.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  if (route.scope === 'read') {
    test.each(['read', 'write', 'admin'] as const)('answers a %s key', async (scope) => {
      const response = await send(route, api.keys[scope]);
      expect(response.status).toBe(route.okStatus ?? 200);
    });
  } else if (route.scope === 'write') {
    test('refuses a read key with 403 READ_ONLY_API_KEY and stores nothing', async () => {
      const attestations = () => api.db.query('SELECT count(*)::int AS n FROM attestations');
      const before = (await attestations()).rows[0].n;
      const response = await send(route, api.keys.read);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('READ_ONLY_API_KEY');
      expect((await attestations()).rows[0].n).toBe(before);
    });
    test.each(['write', 'admin'] as const)('lets a %s key through authorisation', async (scope) => {
      await api.tradeAt(Date.now());
      const response = await send(route, api.keys[scope]);
      expect(response.status).toBe(200);
    });
  } else {
    test('refuses a read key with 403 READ_ONLY_API_KEY and changes nothing', async () => {
      const before = await api.db.query('SELECT paused FROM market_state');
      const response = await send(route, api.keys.read);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('READ_ONLY_API_KEY');
      expect((await api.db.query('SELECT paused FROM market_state')).rows).toEqual(before.rows);
    });
    test('refuses a write key with 403 ADMIN_SCOPE_REQUIRED', async () => {
      const response = await send(route, api.keys.write);
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('ADMIN_SCOPE_REQUIRED');
    });
  }
});

test('the key itself never appears in a response', async () => {
  const response = await api.http.get('/v1/status/market').set('x-api-key', api.keys.read);
  expect(JSON.stringify(response.headers) + response.text).not.toContain(api.keys.read);
});

test('keys are stored hashed', async () => {
  const { rows } = await api.db.query<{ key_hash: Buffer }>('SELECT key_hash FROM api_keys');
  for (const row of rows) expect(row.key_hash.toString('utf8')).not.toMatch(/^isk_/);
});
