/** Cross-cutting behaviour: error shape and reference, request ids, bodies, unknown routes, rate limits, caching, 500s. */
import { createApiKey, type KeyScope } from '../../db/queries/api-keys';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ rateLimitPerSecond: 2, rateLimitBurst: 5 });
});
afterAll(() => api.close());

const pause = () => api.http.post('/v1/status/market/pause').set('x-api-key', api.keys.admin);

describe('errors', () => {
  test('documentation points into the error reference, which the service serves without a key', async () => {
    const failure = await api.http.get('/v1/assets/xx/market').set('x-api-key', api.keys.admin);
    expect(failure.body.documentation).toBe(`${TEST_BASE_URL}/docs/errors#invalid_symbol`);
    const reference = await api.http.get('/docs/errors');
    expect(reference.status).toBe(200);
    expect(reference.type).toBe('text/html');
    // asset_limited is a reason (trading limits, asset statuses), not an error; its documentation URL has its entry too.
    for (const code of ['invalid_symbol', 'missing_api_key', 'rate_limited', 'internal_error', 'asset_not_found', 'max_limit_reached', 'asset_limited']) {
      expect(reference.text).toContain(`id="${code}"`);
    }
  });

  test('an unknown route is 404 RESOURCE_NOT_FOUND in the error shape', async () => {
    const response = await api.http.get('/v1/nothing/here').set('x-api-key', api.keys.admin);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'RESOURCE_NOT_FOUND', message: expect.any(String), documentation: `${TEST_BASE_URL}/docs/errors#resource_not_found` });
  });

  test('a known route with the wrong method is 405', async () => {
    const response = await api.http.delete('/v1/tickers').set('x-api-key', api.keys.admin);
    expect(response.status).toBe(405);
    expect(response.body.code).toBe('METHOD_NOT_ALLOWED');
  });

  test('malformed JSON is 400 MALFORMED_JSON', async () => {
    const response = await pause().set('content-type', 'application/json').send('{"reason": ');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('MALFORMED_JSON');
  });

  test('a body that is not JSON is 415', async () => {
    const response = await pause().set('content-type', 'text/plain').send('reason=x');
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('an oversized body is 413 and changes nothing', async () => {
    const response = await pause().send({ reason: 'x'.repeat(70_000) });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await api.db.query('SELECT paused FROM market_state')).rows[0].paused).toBe(false);
  });

  test('a failure inside a handler is 500 INTERNAL_ERROR with the request id, never a stack trace', async () => {
    const original = api.app.services.assets.all.bind(api.app.services.assets);
    api.app.services.assets.all = () => Promise.reject(new Error('database exploded at /secret/path.ts:12'));
    api.app.services.forget('prices');
    try {
      const response = await api.http.get('/v1/assets/all/prices/latest').set('x-api-key', api.keys.admin).set('x-request-id', 'req-test-12345');
      expect(response.status).toBe(500);
      expect(response.body.code).toBe('INTERNAL_ERROR');
      expect(response.body.message).toContain('req-test-12345');
      expect(response.text).not.toContain('exploded');
      expect(response.text).not.toContain('.ts:');
      expect(response.headers['x-request-id']).toBe('req-test-12345');
    } finally {
      api.app.services.assets.all = original;
    }
  });

  test('every response carries a request id', async () => {
    const response = await api.http.get('/v1/status/market').set('x-api-key', api.keys.write);
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('rate limits', () => {
  test('past the burst a key gets 429 RATE_LIMITED; the RateLimit fields agree with each other and with Retry-After', async () => {
    const statuses: number[] = [];
    const remaining: number[] = [];
    let refused;
    for (let index = 0; index < 8; index += 1) {
      const response = await api.http.get('/v1/status/market').set('x-api-key', api.keys.read);
      statuses.push(response.status);
      // burst 5 at 2/s: five requests at once, the whole quota back within 3 s
      expect(response.headers['ratelimit-policy']).toBe('"key";q=5;w=3');
      const [, r = '', t = ''] = /^"key";r=(\d+);t=(\d+)$/.exec(response.headers.ratelimit ?? '') ?? [];
      expect(Number(r)).toBeLessThanOrEqual(5);
      if (response.status === 429) {
        refused = response;
        expect(r).toBe('0');
        expect(t).toBe(response.headers['retry-after']);
      } else {
        remaining.push(Number(r));
        expect(Number(t)).toBeGreaterThanOrEqual(1);
        expect(Number(t)).toBeLessThanOrEqual(3);
      }
      for (const legacy of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(response.headers[legacy]).toBeUndefined();
    }
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(6);
    expect(remaining.slice(0, 5)).toEqual([4, 3, 2, 1, 0]);
    expect(refused!.body.code).toBe('RATE_LIMITED');
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await api.http.get('/v1/status/market').set('x-api-key', api.keys.write)).status).toBe(200);
  });

  test('a per-key override raises the limit for that key', async () => {
    await api.db.query(`UPDATE api_keys SET rate_limit_per_second = 1000, rate_limit_burst = 1000 WHERE scope = 'admin'`);
    for (let index = 0; index < 20; index += 1) {
      const response = await api.http.get('/v1/status/market').set('x-api-key', api.keys.admin);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe('"key";q=1000;w=1');
    }
  });
});

describe('failed authentication', () => {
  let guarded: TestApi;
  beforeAll(async () => {
    guarded = await createTestApi({ authFailuresPerMinute: 10 });
  });
  afterAll(() => guarded.close());

  test('wrong keys from one address: 10 a minute get 401, then 429 without a database lookup, all with the failed-auth RateLimit fields', async () => {
    const keyLookups = jest.fn();
    const query = guarded.db.query.bind(guarded.db);
    guarded.db.query = ((text: unknown, ...rest: unknown[]) => {
      if (typeof text === 'string' && text.includes('api_keys')) keyLookups();
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as typeof guarded.db.query;
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, index) => guarded.http.get('/v1/tickers').set('x-api-key', `isk_read_wrong-${index}`)),
      );
      const statuses = answers.map((response) => response.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(10);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30);
      expect(keyLookups).toHaveBeenCalledTimes(10);
      for (const response of answers) {
        expect(response.headers['ratelimit-policy']).toBe('"failed-auth";q=10;w=60');
        expect(response.headers.ratelimit).toMatch(/^"failed-auth";r=\d+;t=\d+$/);
      }
      const refused = answers.find((response) => response.status === 429)!;
      expect(refused.body).toEqual({ code: 'RATE_LIMITED', message: expect.any(String), documentation: `${TEST_BASE_URL}/docs/errors#rate_limited` });
      expect(refused.headers['retry-after']).toBe('6');
      expect(refused.headers.ratelimit).toBe('"failed-auth";r=0;t=6');
      const missing = await guarded.http.get('/v1/tickers');
      expect(missing.status).toBe(401);
      expect(missing.headers.ratelimit).toMatch(/^"failed-auth";r=0;t=\d+$/);
    } finally {
      guarded.db.query = query;
    }
  });

  test('valid keys this process has not seen yet are never throttled in a first burst; concurrent requests of one key share one lookup', async () => {
    const fresh = await createTestApi({ authFailuresPerMinute: 10, database: guarded });
    const query = fresh.db.query.bind(fresh.db);
    try {
      const three = await Promise.all(['read', 'write', 'admin'].map(async (scope) => (await createApiKey(fresh.db, { name: `first burst ${scope}`, scope: scope as KeyScope })).secret));
      const many = await Promise.all(Array.from({ length: 25 }, async (_, index) => (await createApiKey(fresh.db, { name: `first burst ${index}`, scope: 'read' })).secret));
      const lookups: string[] = [];
      // Slow key lookups, so that every request of a burst arrives while the first lookups are still under way.
      fresh.db.query = (async (text: unknown, ...rest: unknown[]) => {
        if (typeof text === 'string' && text.includes('api_keys')) {
          lookups.push(text);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return await (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
      }) as typeof fresh.db.query;

      const burst = await Promise.all(Array.from({ length: 60 }, (_, index) => fresh.http.get('/v1/tickers').set('x-api-key', three[index % 3]!)));
      expect(burst.map((response) => response.status)).toEqual(Array(60).fill(200));
      expect(lookups).toHaveLength(3);

      // More keys at once than the address may fail with: the lookups past the budget wait, then all pass.
      const distinct = await Promise.all(many.map((key) => fresh.http.get('/v1/tickers').set('x-api-key', key)));
      expect(distinct.map((response) => response.status)).toEqual(Array(25).fill(200));
      expect(lookups).toHaveLength(28);
      for (const response of distinct) expect(response.headers.ratelimit).toMatch(/^"key";/);
    } finally {
      fresh.db.query = query;
      await fresh.close();
    }
  });

  test('a valid key with many requests in flight from one address is never throttled as a guess', async () => {
    const fresh = await createTestApi({ authFailuresPerMinute: 10, database: guarded });
    try {
      const keys = [fresh.keys.read, fresh.keys.write, fresh.keys.admin];
      for (const key of keys) expect((await fresh.http.get('/v1/tickers').set('x-api-key', key)).status).toBe(200);
      // Slow key lookups, so that far more requests than the failure budget wait on one at the same time.
      const query = fresh.db.query.bind(fresh.db);
      fresh.db.query = (async (text: unknown, ...rest: unknown[]) => {
        if (typeof text === 'string' && text.includes('api_keys')) await new Promise((resolve) => setTimeout(resolve, 200));
        return await (query as (...args: unknown[]) => Promise<unknown>)(text, ...rest);
      }) as typeof fresh.db.query;
      const answers = await Promise.all(Array.from({ length: 60 }, (_, index) => fresh.http.get('/v1/tickers').set('x-api-key', keys[index % 3]!)));
      fresh.db.query = query;
      expect(answers.map((response) => response.status)).toEqual(Array(60).fill(200));
    } finally {
      await fresh.close();
    }
  });
});

describe('caching', () => {
  test('a write invalidates the cached answer at once', async () => {
    const key = api.keys.admin;
    await api.http.put('/v1/limits/session/MSFTon/regular').set('x-api-key', key).send({ tradable: true, maxAttestationCount: '20', maxActiveNotionalValue: '250000' });
    const before = (await api.http.get('/v1/limits/session').set('x-api-key', key)).body[0].limits.find((e: { symbol: string }) => e.symbol === 'MSFTon');
    expect(before.regular.maxAttestationCount).toBe('20');
    await api.http.put('/v1/limits/session/MSFTon/regular').set('x-api-key', key).send({ tradable: true, maxAttestationCount: '7', maxActiveNotionalValue: '250000' });
    const after = (await api.http.get('/v1/limits/session').set('x-api-key', key)).body[0].limits.find((e: { symbol: string }) => e.symbol === 'MSFTon');
    expect(after.regular.maxAttestationCount).toBe('7');
  });
});
