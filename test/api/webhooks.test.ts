/**
 * The /v1/webhooks routes against the real app and PostgreSQL (migration 020's tables and triggers): registering an
 * endpoint (its secret shown once and stored only sealed), the SSRF policy at registration and at enable, who may
 * see and change which endpoint, rotating, disabling and enabling, deleting, the deliveries the triggers queue with
 * their attempts, and replaying one; each answer checked against the OpenAPI document (CHECK_ANSWERS=fail).
 */
import { createApiKey } from '../../db/queries/api-keys';
import { claimDueWebhookDeliveries, recordWebhookAttempt } from '../../db/queries/webhooks';
import { newYorkTime } from '../../domain/calendar';
import { createSecretBox, newWebhookMasterKey } from '../../webhooks/secret-box';
import type { Resolver } from '../../webhooks/url-guard';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const DAY_MS = 86_400_000;

/** Names the tests resolve without DNS: a public address, and one inside a private network. */
const ADDRESSES: Record<string, string> = { 'hooks.example': '93.184.215.14', 'inside.example': '192.168.7.20' };
const resolve: Resolver = async (hostname) => {
  const address = ADDRESSES[hostname];
  if (!address) throw new Error(`ENOTFOUND ${hostname}`);
  return [{ address, family: 4 }];
};

/** The internal URLs of the SSRF cases, and the networks that allow each. */
const INTERNAL_URLS = ['http://127.0.0.1:9000/hook', 'http://169.254.169.254/latest', 'http://[::1]/hook', 'http://10.0.0.5/hook', 'https://inside.example/hook'];
const INTERNAL_NETWORKS = ['127.0.0.0/8', '169.254.0.0/16', '::1', '10.0.0.0/8', '192.168.0.0/16'];

const masterKey = newWebhookMasterKey();
const box = createSecretBox(masterKey);

/** Plain http allowed (a local receiver) and the internal networks allowed: what registration accepts. */
let api: TestApi;
/** The same, with no network allowed: the production default for where a webhook may go. */
let strict: TestApi;
/** No master key: the webhook routes are unavailable. */
let bare: TestApi;
let stranger: string;

beforeAll(async () => {
  const settings = { WEBHOOK_SECRET_KEYS: masterKey, WEBHOOK_ALLOW_HTTP: true, resolve };
  api = await createTestApi({ webhooks: { ...settings, WEBHOOK_ALLOWED_NETWORKS: INTERNAL_NETWORKS, WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: 100 } });
  strict = await createTestApi({ webhooks: { ...settings, WEBHOOK_ALLOWED_NETWORKS: [], WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: 3 } });
  bare = await createTestApi({ webhooks: { WEBHOOK_SECRET_KEYS: undefined } });
  stranger = (await createApiKey(api.db, { name: 'stranger', scope: 'write' })).secret;
});
afterAll(async () => {
  await api?.close();
  await strict?.close();
  await bare?.close();
});

const ACCOUNT_EVENTS = ['attestation.executed', 'attestation.expired'];
const register = (app: TestApi, body: object, key = app.keys.write) => app.http.post('/v1/webhooks').set('x-api-key', key).send(body);
const registered = async (app: TestApi, body: object = {}, key = app.keys.write) => {
  const response = await register(app, { url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS, ...body }, key);
  expect(response.status).toBe(201);
  return response.body as { webhookId: string; secret: string; url: string };
};
const endpointRow = async (app: TestApi, webhookId: string) =>
  (await app.db.query(`SELECT *, t::text AS "rowText" FROM webhook_endpoints t WHERE endpoint_id = $1`, [webhookId])).rows[0] as Record<string, unknown> | undefined;
const errorBody = (code: string) => ({ code, message: expect.any(String), documentation: `${TEST_BASE_URL}/docs/errors#${code.toLowerCase()}` });

describe('registering an endpoint', () => {
  test('answers 201 with the secret once; the row holds it only sealed; list and get never show it', async () => {
    const response = await register(api, { url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS, description: 'our backend' });
    expect(response.status).toBe(201);
    const { webhookId, secret } = response.body;
    expect(webhookId).toMatch(/^wh_[0-9a-f]{16}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(response.body).toMatchObject({ url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS, description: 'our backend', audience: 'account', state: 'enabled', disabledBy: null, failingSince: null });

    const row = (await endpointRow(api, webhookId))!;
    const owner = (await api.db.query(`SELECT account_id FROM api_keys WHERE account_id IS NOT NULL AND scope = 'write' AND name = 'test write'`)).rows[0]!.account_id;
    expect(row).toMatchObject({ account_id: owner, audience: 'account', url: 'https://hooks.example/receive', event_types: ACCOUNT_EVENTS, state: 'enabled' });
    // Neither the secret nor its key bytes are anywhere in the row: not in its text, not in the sealed bytes.
    const keyBytes = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect(String(row.rowText)).not.toContain(secret);
    expect(String(row.rowText)).not.toContain(secret.slice('whsec_'.length));
    expect(String(row.rowText)).not.toContain(keyBytes.toString('hex'));
    expect((row.secret_sealed as Buffer).includes(keyBytes)).toBe(false);
    expect((row.secret_sealed as Buffer).includes(Buffer.from(secret))).toBe(false);
    // The operator's master key opens it, for this endpoint only.
    expect(box.open(webhookId, { keyId: String(row.secret_key_id), sealed: row.secret_sealed as Buffer })).toBe(secret);

    const listed = await api.http.get('/v1/webhooks').set('x-api-key', api.keys.write);
    const got = await api.http.get(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write);
    expect(got.status).toBe(200);
    const { secret: _shownOnce, ...endpoint } = response.body;
    expect(got.body).toEqual(endpoint);
    expect(listed.body.webhooks).toContainEqual(endpoint);
    for (const body of [listed.text, got.text]) expect(body).not.toContain(secret.slice('whsec_'.length));
  });

  test('Idempotency-Key: a retry answers the same endpoint and secret (200, Idempotent-Replayed); another body is 422', async () => {
    const body = { url: 'https://hooks.example/idempotent', events: ['attestation.executing'] };
    const first = await register(api, body).set('Idempotency-Key', 'register-1');
    expect(first.status).toBe(201);
    const retry = await register(api, { events: ['attestation.executing'], url: 'https://hooks.example/idempotent' }).set('Idempotency-Key', 'register-1');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await api.db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE idempotency_key = 'register-1'`)).rows[0].n).toBe(1);
    const other = await register(api, { ...body, url: 'https://hooks.example/other' }).set('Idempotency-Key', 'register-1');
    expect(other.status).toBe(422);
    expect(other.body).toEqual(errorBody('IDEMPOTENCY_KEY_REUSED'));
    const blank = await register(api, body).set('Idempotency-Key', ' ');
    expect(blank.status).toBe(400);
    expect(blank.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    await api.http.delete(`/v1/webhooks/${first.body.webhookId}`).set('x-api-key', api.keys.write);
  });

  test.each([
    ['an unknown event type', { events: ['attestation.bogus'] }, 400, 'INVALID_EVENT_TYPE'],
    ['no event', { events: [] }, 400, 'INVALID_EVENT_TYPE'],
    ['an event twice', { events: ['attestation.executed', 'attestation.executed'] }, 400, 'INVALID_EVENT_TYPE'],
    ['a malformed URL', { url: 'not a url' }, 400, 'INVALID_WEBHOOK_URL'],
    ['another scheme', { url: 'ftp://hooks.example/receive' }, 400, 'INVALID_WEBHOOK_URL'],
    ['credentials in the URL', { url: 'https://user:password@hooks.example/receive' }, 400, 'INVALID_WEBHOOK_URL'],
    ['a host that does not resolve', { url: 'https://nowhere.example/receive' }, 400, 'INVALID_WEBHOOK_URL'],
    ['a URL past 2048 characters', { url: `https://hooks.example/${'a'.repeat(2048)}` }, 400, 'INVALID_WEBHOOK_URL'],
    ['an unknown field', { secret: 'whsec_mine' }, 400, 'INVALID_REQUEST_BODY'],
    ["an operator event with a write key", { events: ['reserves.short'] }, 403, 'ADMIN_SCOPE_REQUIRED'],
  ])('%s is refused, and nothing is stored', async (_name, change, status, code) => {
    const before = (await api.db.query('SELECT count(*)::int AS n FROM webhook_endpoints')).rows[0].n;
    const response = await register(api, { url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS, ...change });
    expect(response.status).toBe(status);
    expect(response.body).toEqual(errorBody(code));
    expect((await api.db.query('SELECT count(*)::int AS n FROM webhook_endpoints')).rows[0].n).toBe(before);
  });

  test.each([
    ['no key', undefined, 401, 'MISSING_API_KEY'],
    ['a read key', 'read', 403, 'READ_ONLY_API_KEY'],
  ] as const)('%s is refused', async (_name, scope, status, code) => {
    const call = api.http.post('/v1/webhooks').send({ url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS });
    const response = await (scope ? call.set('x-api-key', api.keys[scope]) : call);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
    expect((await api.http.get('/v1/webhooks').set('x-api-key', api.keys.read)).body.code).toBe('READ_ONLY_API_KEY');
  });

  test('an account has at most WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT endpoints (400 WEBHOOK_LIMIT_REACHED)', async () => {
    const busy = (await createApiKey(strict.db, { name: 'busy', scope: 'write' })).secret;
    for (let index = 0; index < 3; index++) await registered(strict, { url: `https://hooks.example/${index}` }, busy);
    const refused = await register(strict, { url: 'https://hooks.example/4', events: ACCOUNT_EVENTS }, busy);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorBody('WEBHOOK_LIMIT_REACHED'));
    expect((await strict.http.get('/v1/webhooks').set('x-api-key', busy)).body.webhooks).toHaveLength(3);
  });
});

describe('SSRF: where an endpoint may point', () => {
  test.each(INTERNAL_URLS)('%s is refused 400 WEBHOOK_URL_FORBIDDEN with no network allowed, and accepted where its network is', async (url) => {
    const refused = await register(strict, { url, events: ACCOUNT_EVENTS });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorBody('WEBHOOK_URL_FORBIDDEN'));
    expect(refused.body.message).toContain('WEBHOOK_ALLOWED_NETWORKS');
    expect((await strict.db.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE url = $1', [url])).rows[0].n).toBe(0);
    const accepted = await register(api, { url, events: ACCOUNT_EVENTS }, stranger);
    expect(accepted.status).toBe(201);
    await api.http.delete(`/v1/webhooks/${accepted.body.webhookId}`).set('x-api-key', stranger);
  });

  test('enable checks the URL again: a URL the policy now refuses keeps the endpoint disabled', async () => {
    const { webhookId } = await registered(strict);
    expect((await strict.http.post(`/v1/webhooks/${webhookId}/disable`).set('x-api-key', strict.keys.write)).status).toBe(200);
    // The name now points inward (or the operator narrowed the allowed networks).
    await strict.db.query(`UPDATE webhook_endpoints SET url = 'https://inside.example/receive' WHERE endpoint_id = $1`, [webhookId]);
    const refused = await strict.http.post(`/v1/webhooks/${webhookId}/enable`).set('x-api-key', strict.keys.write);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(errorBody('WEBHOOK_URL_FORBIDDEN'));
    expect((await endpointRow(strict, webhookId))!.state).toBe('disabled');
  });
});

describe('who sees which endpoint', () => {
  test("an admin key registers and sees the operators' endpoints; a write key sees only its account's", async () => {
    const operators = await register(api, { url: 'https://hooks.example/operators', events: ['reserves.short', 'review.hedge_order'] }, api.keys.admin);
    expect(operators.status).toBe(201);
    expect(operators.body.audience).toBe('operators');
    const adminList = await api.http.get('/v1/webhooks').set('x-api-key', api.keys.admin);
    expect(adminList.body.webhooks.map((endpoint: { webhookId: string }) => endpoint.webhookId)).toContain(operators.body.webhookId);
    const writeList = await api.http.get('/v1/webhooks').set('x-api-key', api.keys.write);
    expect(writeList.body.webhooks.map((endpoint: { webhookId: string }) => endpoint.webhookId)).not.toContain(operators.body.webhookId);
    expect((await api.http.get(`/v1/webhooks/${operators.body.webhookId}`).set('x-api-key', api.keys.write)).status).toBe(404);
  });

  const ROUTES: [string, string, (id: string) => string][] = [
    ['get', 'GET', (id) => `/v1/webhooks/${id}`],
    ['rotate', 'POST', (id) => `/v1/webhooks/${id}/rotate-secret`],
    ['disable', 'POST', (id) => `/v1/webhooks/${id}/disable`],
    ['enable', 'POST', (id) => `/v1/webhooks/${id}/enable`],
    ['delete', 'DELETE', (id) => `/v1/webhooks/${id}`],
    ['deliveries', 'GET', (id) => `/v1/webhooks/${id}/deliveries`],
    ['replay', 'POST', (id) => `/v1/webhooks/${id}/deliveries/1/replay`],
  ];
  const call = (app: TestApi, method: string, path: string, key: string) =>
    (method === 'GET' ? app.http.get(path) : method === 'DELETE' ? app.http.delete(path) : app.http.post(path)).set('x-api-key', key);

  test.each(ROUTES)("%s: another account's endpoint, or none, is 404 WEBHOOK_NOT_FOUND and is left as it was", async (_name, method, path) => {
    const { webhookId } = await registered(api);
    const before = await endpointRow(api, webhookId);
    for (const [id, key] of [
      [webhookId, stranger],
      ['wh_0000000000000000', api.keys.write],
    ] as const) {
      const response = await call(api, method, path(id), key);
      expect(response.status).toBe(404);
      expect(response.body).toEqual(errorBody('WEBHOOK_NOT_FOUND'));
    }
    expect(await endpointRow(api, webhookId)).toEqual(before);
    expect((await call(api, method, path('wh_XYZ'), api.keys.write)).body.code).toBe('INVALID_PARAMETER');
    await api.http.delete(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write);
  });

  test.each([['list', 'GET', () => '/v1/webhooks'] as const, ...ROUTES])('%s: 503 WEBHOOKS_UNAVAILABLE without the master keys', async (_name, method, path) => {
    const response = await call(bare, method, path('wh_0000000000000000'), bare.keys.write);
    expect(response.status).toBe(503);
    expect(response.body).toEqual(errorBody('WEBHOOKS_UNAVAILABLE'));
    expect(response.headers['retry-after']).toBeDefined();
  });

  test('create: 503 WEBHOOKS_UNAVAILABLE without the master keys', async () => {
    const response = await register(bare, { url: 'https://hooks.example/receive', events: ACCOUNT_EVENTS });
    expect(response.status).toBe(503);
    expect(response.body).toEqual(errorBody('WEBHOOKS_UNAVAILABLE'));
  });
});

describe("an endpoint's secret and state", () => {
  test('rotate-secret: a new secret shown once, the previous one kept sealed for 24 hours', async () => {
    const { webhookId, secret } = await registered(api);
    api.setNow(MONDAY_10AM);
    const rotated = await api.http.post(`/v1/webhooks/${webhookId}/rotate-secret`).set('x-api-key', api.keys.write);
    api.setNow(undefined);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: MONDAY_10AM + DAY_MS });
    expect(rotated.body.secret).not.toBe(secret);
    const row = (await endpointRow(api, webhookId))!;
    expect(box.open(webhookId, { keyId: String(row.secret_key_id), sealed: row.secret_sealed as Buffer })).toBe(rotated.body.secret);
    expect(box.open(webhookId, { keyId: String(row.previous_key_id), sealed: row.previous_sealed as Buffer })).toBe(secret);
    expect((row.previous_expires_at as Date).getTime()).toBe(MONDAY_10AM + DAY_MS);
    expect(String(row.rowText)).not.toContain(rotated.body.secret.slice('whsec_'.length));
    expect((await api.http.get(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write)).text).not.toContain(rotated.body.secret.slice('whsec_'.length));
  });

  test('disable and enable: by its owner, with the reason it reads; enable clears the failure record and wakes delivery', async () => {
    const { webhookId } = await registered(api);
    const disabled = await api.http.post(`/v1/webhooks/${webhookId}/disable`).set('x-api-key', api.keys.write);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ state: 'disabled', disabledBy: 'owner', disabledReason: expect.stringContaining('owner'), disabledAt: expect.any(Number) });
    expect(await endpointRow(api, webhookId)).toMatchObject({ state: 'disabled', disabled_by: 'owner' });
    // Again: nothing changes.
    expect((await api.http.post(`/v1/webhooks/${webhookId}/disable`).set('x-api-key', api.keys.write)).body).toEqual(disabled.body);
    // As if its deliveries had failed for a while.
    await api.db.query(`UPDATE webhook_endpoints SET failing_since = now(), last_failure = 'HTTP 500' WHERE endpoint_id = $1`, [webhookId]);
    const enabled = await api.http.post(`/v1/webhooks/${webhookId}/enable`).set('x-api-key', api.keys.write);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ state: 'enabled', disabledBy: null, disabledReason: null, failingSince: null });
    expect(await endpointRow(api, webhookId)).toMatchObject({ state: 'enabled', disabled_by: null, failing_since: null });
    expect((await api.db.query('SELECT count(*)::int AS n FROM webhook_endpoint_wakeups WHERE endpoint_id = $1', [webhookId])).rows[0].n).toBe(1);
  });

  test('delete: 204, the row gone, then 404', async () => {
    const { webhookId } = await registered(api);
    const deleted = await api.http.delete(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write);
    expect(deleted.status).toBe(204);
    expect(await endpointRow(api, webhookId)).toBeUndefined();
    expect((await api.http.delete(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write)).status).toBe(404);
    expect((await api.http.get(`/v1/webhooks/${webhookId}`).set('x-api-key', api.keys.write)).status).toBe(404);
  });
});

describe('deliveries', () => {
  let webhookId: string;
  const attestationIds: string[] = [];
  const deliveries = (query = '', id = webhookId) => api.http.get(`/v1/webhooks/${id}/deliveries${query}`).set('x-api-key', api.keys.write);
  const replay = (deliveryId: string, id = webhookId) => api.http.post(`/v1/webhooks/${id}/deliveries/${deliveryId}/replay`).set('x-api-key', api.keys.write);

  beforeAll(async () => {
    ({ webhookId } = await registered(api, { url: 'https://hooks.example/deliveries', events: ['attestation.executed'] }));
    for (let index = 0; index < 3; index++) {
      await api.tradeAt(MONDAY_10AM + index * 60_000);
      const created = await api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send({ symbol: 'AAPLon', side: 'buy', tokenAmount: '1', duration: 'long' });
      expect(created.status).toBe(200);
      attestationIds.push(created.body.attestationId);
    }
    api.setNow(undefined);
    // Each execution, final: the trigger queues one delivery of `attestation.executed` per attestation.
    for (const attestationId of attestationIds) {
      await api.db.query(`UPDATE attestations SET state = 'executed', execution_tx_hash = '0xabc', state_changed_at = $2 WHERE attestation_id = $1::numeric`, [attestationId, MONDAY_10AM]);
    }
    // A worker's first attempts: the first two deliveries fail with a 500, then the first is delivered and the
    // second's next attempt is left in flight, as is the third's first.
    const claimed = await claimDueWebhookDeliveries(api.db, webhookId, { limit: 10, leaseMs: 60_000 });
    expect(claimed).toHaveLength(3);
    const [first, second] = claimed;
    for (const delivery of [first!, second!]) {
      await recordWebhookAttempt(api.db, {
        deliveryId: delivery.deliveryId, attempt: 1, outcome: 'failed', status: 500, error: null, responseExcerpt: 'oops', address: '93.184.215.14', durationMs: 12, nextAttemptAt: Date.now() - 1,
      });
    }
    const again = await claimDueWebhookDeliveries(api.db, webhookId, { limit: 10, leaseMs: 60_000 });
    const retried = again.find((delivery) => delivery.deliveryId === first!.deliveryId)!;
    await recordWebhookAttempt(api.db, {
      deliveryId: retried.deliveryId, attempt: retried.attempt, outcome: 'delivered', status: 200, error: null, responseExcerpt: null, address: '93.184.215.14', durationMs: 8, nextAttemptAt: null,
    });
  });

  test('newest first, each with its event and attempts', async () => {
    const response = await deliveries();
    expect(response.status).toBe(200);
    expect(response.body.nextCursor).toBeNull();
    const listed = response.body.deliveries as { deliveryId: string; state: string; event: { id: string; resource: { id: string } }; attempts: { outcome: string; status: number }[] }[];
    expect(listed.map((delivery) => delivery.event.resource.id)).toEqual([...attestationIds].reverse());
    for (const delivery of listed) {
      expect(delivery.event).toMatchObject({ id: expect.stringMatching(/^evt_\d+$/), type: 'attestation.executed', resource: { kind: 'attestation' } });
    }
    const oldest = listed.at(-1)!;
    expect(oldest.state).toBe('delivered');
    expect(oldest.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', status: 500, durationMs: 12 }),
      expect.objectContaining({ attempt: 2, outcome: 'delivered', status: 200, durationMs: 8 }),
    ]);
    // Its second attempt is in flight: no outcome yet.
    expect(listed[1]!.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', status: 500 }),
      expect.objectContaining({ attempt: 2, outcome: null, status: null, finishedAt: null }),
    ]);
    expect(listed[0]!.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: null })]);
  });

  test('paged by cursor, filtered by state', async () => {
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await deliveries(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.deliveries.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.deliveries.map((delivery: { deliveryId: string }) => delivery.deliveryId));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual((await deliveries()).body.deliveries.map((delivery: { deliveryId: string }) => delivery.deliveryId));
    const delivered = await deliveries('?state=delivered');
    expect(delivered.body.deliveries.map((delivery: { event: { resource: { id: string } } }) => delivery.event.resource.id)).toEqual([attestationIds[0]]);
    expect((await deliveries('?state=gone')).body.code).toBe('INVALID_PARAMETER');
  });

  test('replay: 202, the delivery pending again with the same event, and delivery woken', async () => {
    const delivered = (await deliveries('?state=delivered')).body.deliveries[0];
    await api.db.query('DELETE FROM webhook_endpoint_wakeups WHERE endpoint_id = $1', [webhookId]);
    const response = await replay(delivered.deliveryId);
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ deliveryId: delivered.deliveryId, state: 'pending', event: delivered.event });
    const row = (await api.db.query('SELECT state, next_attempt_at <= now() AS due FROM webhook_deliveries WHERE delivery_id = $1', [delivered.deliveryId])).rows[0];
    expect(row).toEqual({ state: 'pending', due: true });
    expect((await api.db.query('SELECT count(*)::int AS n FROM webhook_endpoint_wakeups WHERE endpoint_id = $1', [webhookId])).rows[0].n).toBe(1);
  });

  test("replay: another endpoint's delivery, or none, is 404 DELIVERY_NOT_FOUND; on a disabled endpoint 409 WEBHOOK_DISABLED", async () => {
    const deliveryId = (await deliveries()).body.deliveries[0].deliveryId;
    const other = await registered(api, { url: 'https://hooks.example/other' });
    for (const [id, endpoint] of [
      [deliveryId, other.webhookId],
      ['999999999', webhookId],
    ]) {
      const response = await replay(id!, endpoint);
      expect(response.status).toBe(404);
      expect(response.body).toEqual(errorBody('DELIVERY_NOT_FOUND'));
    }
    await api.http.post(`/v1/webhooks/${webhookId}/disable`).set('x-api-key', api.keys.write);
    const refused = await replay(deliveryId);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(errorBody('WEBHOOK_DISABLED'));
    // Disabling cancelled what was pending; enabled again, a cancelled delivery can be replayed.
    const cancelled = await deliveries('?state=cancelled');
    expect(cancelled.body.deliveries.length).toBeGreaterThan(0);
    await api.http.post(`/v1/webhooks/${webhookId}/enable`).set('x-api-key', api.keys.write);
    expect((await replay(cancelled.body.deliveries[0].deliveryId)).status).toBe(202);
  });
});
