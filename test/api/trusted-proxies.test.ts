/**
 * Behind a proxy the failed-authentication throttle counts by the client's address: X-Forwarded-For is taken only from
 * a trusted proxy (TRUSTED_PROXIES), read from the right past the trusted hops; from anyone else it is ignored.
 */
import request from 'supertest';
import { clientAddressOf } from '../../api/framework/client-address';
import { quietLogger, testConfig } from '../../harness/settings';
import { createProductApp } from '../../start/api';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
});
afterAll(() => database?.drop());

function appTrusting(trustedProxies: string[]) {
  const app = createProductApp({
    config: testConfig({ AUTH_FAILURES_PER_MINUTE: 2, TRUSTED_PROXIES: trustedProxies }),
    db: database.db,
    logger: quietLogger(),
  });
  return request(app.koa.callback());
}

const guess = (http: ReturnType<typeof appTrusting>, forwardedFor: string) =>
  http.get('/v1/tickers').set('x-api-key', 'isk_read_not-a-key').set('x-forwarded-for', forwardedFor);

test('from a trusted proxy, each forwarded client has its own failed-authentication budget', async () => {
  const http = appTrusting(['127.0.0.1', '::1']);
  expect((await guess(http, '203.0.113.7')).status).toBe(401);
  expect((await guess(http, '203.0.113.7')).status).toBe(401);
  expect((await guess(http, '203.0.113.7')).body.code).toBe('RATE_LIMITED');
  // Another client behind the same proxy still has its budget; a spoofed left-most hop changes nothing.
  expect((await guess(http, '198.51.100.4')).status).toBe(401);
  expect((await guess(http, '10.9.9.9, 203.0.113.7')).body.code).toBe('RATE_LIMITED');
});

test('from an untrusted peer, X-Forwarded-For is ignored: the peer is the client', async () => {
  const http = appTrusting([]);
  expect((await guess(http, '203.0.113.7')).status).toBe(401);
  expect((await guess(http, '198.51.100.4')).status).toBe(401);
  expect((await guess(http, '192.0.2.1')).body.code).toBe('RATE_LIMITED');
});

test.each([
  ['no trusted proxy', [], '10.0.0.5', '203.0.113.7', '10.0.0.5'],
  ['a trusted peer', ['10.0.0.0/8'], '10.0.0.5', '203.0.113.7', '203.0.113.7'],
  ['trusted hops skipped from the right', ['10.0.0.0/8'], '10.0.0.5', '198.51.100.1, 203.0.113.7, 10.1.2.3', '203.0.113.7'],
  ['an IPv4-mapped peer', ['10.0.0.5'], '::ffff:10.0.0.5', '203.0.113.7', '203.0.113.7'],
  ['an untrusted peer', ['10.0.0.0/8'], '192.0.2.9', '203.0.113.7', '192.0.2.9'],
  ['IPv6 ranges', ['fd00::/8'], 'fd00::1', '2001:db8::5', '2001:db8::5'],
  ['only trusted hops: the left-most', ['10.0.0.0/8'], '10.0.0.5', '10.0.0.7', '10.0.0.7'],
])('client address with %s', (_, trusted, peer, forwardedFor, expected) => {
  expect(clientAddressOf(trusted)(peer, forwardedFor)).toBe(expected);
});
