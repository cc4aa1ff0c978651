/**
 * The OpenAPI document: valid OpenAPI 3.1 for a maintained validator, served without a key, written by
 * `npm run openapi`, naming every error code, with examples that are real answers matching their schemas, and
 * a check of answers that refuses drift. (Every test app runs with CHECK_ANSWERS=fail, so each answer the suite
 * provokes is checked against this document too.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AnswerChecker } from '../../api/contract/answer-check';
import { errorCodesOf } from '../../api/contract/operation';
import { API_EXAMPLES } from '../../api/contract/examples';
import { API_RESOURCES, openApiDocument } from '../../api/resources';
import { createApiKey } from '../../db/queries/api-keys';
import { ERROR_CODES, type ErrorCode } from '../../domain/error-codes';
import { WEBHOOK_EVENT_TYPE_NAMES } from '../../domain/webhook-events';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const ROOT = path.join(__dirname, '..', '..');
const operations = API_RESOURCES.flatMap((resource) => resource.operations);
const document = openApiDocument(TEST_BASE_URL);
const checker = new AnswerChecker(document);

let api: TestApi;
let scratch: string;

beforeAll(async () => {
  api = await createTestApi();
  scratch = mkdtempSync(path.join(tmpdir(), 'openapi-test-'));
});

afterAll(async () => {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('the document is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator', () => {
  const file = path.join(scratch, 'document.json');
  writeFileSync(file, JSON.stringify(document));
  const verdict = JSON.parse(execFileSync(process.execPath, [path.join(ROOT, 'node_modules/@seriousme/openapi-schema-validator/bin/validate-api-cli.js'), file], { encoding: 'utf8' })) as {
    valid: boolean;
    errors?: unknown;
  };
  expect(verdict).toEqual({ valid: true });
});

test('GET /v1/openapi.json needs no key and serves the generated document', async () => {
  const response = await api.http.get('/v1/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual(JSON.parse(JSON.stringify(document)));
  expect(response.body.servers).toEqual([{ url: TEST_BASE_URL }]);
});

test('npm run openapi writes the document for the configured base URL', () => {
  const file = path.join(scratch, 'written.json');
  execFileSync(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'scripts/openapi.ts'), file], {
    env: { ...process.env, PUBLIC_BASE_URL: 'https://issuer.example' },
    stdio: 'pipe',
  });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(openApiDocument('https://issuer.example'))));
});

test('every operation is in the document once, with security, and every error code is named by some operation', () => {
  const documented = Object.entries(document.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method} ${route}`));
  expect(documented.sort()).toEqual(operations.map((operation) => `${operation.method} ${operation.path}`).sort());
  expect(new Set(operations.map((operation) => operation.operationId)).size).toBe(operations.length);
  const named = new Set<ErrorCode>(operations.flatMap(errorCodesOf));
  // The router's own answers to a path or method no operation has.
  named.add('RESOURCE_NOT_FOUND');
  named.add('METHOD_NOT_ALLOWED');
  expect(Object.keys(ERROR_CODES).filter((code) => !named.has(code as ErrorCode))).toEqual([]);
  for (const operation of operations) {
    const documentedOperation = document.paths[operation.path]![operation.method]!;
    expect(documentedOperation.security).toEqual(operation.access === 'public' ? [] : expect.arrayContaining([{ apiKey: [] }]));
  }
});

test('x-retry says which operations a client may retry: reads always, creations with an Idempotency-Key, other changes never', () => {
  const retryOf = (route: string, method: string) => document.paths[route]![method]!['x-retry'];
  for (const operation of operations) expect(['always', 'idempotency-key', 'never']).toContain(retryOf(operation.path, operation.method));
  expect(retryOf('/v1/attestations', 'post')).toBe('idempotency-key');
  expect(retryOf('/v1/webhooks', 'post')).toBe('idempotency-key');
  expect(retryOf('/v1/webhooks/{webhookId}', 'get')).toBe('always');
  expect(retryOf('/v1/webhooks/{webhookId}', 'delete')).toBe('never');
  expect(retryOf('/v1/webhooks/{webhookId}/rotate-secret', 'post')).toBe('never');
});

test('the webhooks section: every catalogue event, a POST of its envelope with the Standard Webhooks headers', () => {
  const webhooks = document.webhooks as Record<string, { post: { parameters: { name: string; in: string; required: boolean }[]; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPE_NAMES].sort());
  for (const [type, { post }] of Object.entries(webhooks)) {
    expect(post.parameters.map(({ name, in: location, required }) => `${location} ${name} ${required}`)).toEqual(['header webhook-id true', 'header webhook-timestamp true', 'header webhook-signature true']);
    const family = { attestation: 'AttestationEvent', redemption: 'RedemptionEvent', partner_request: 'PartnerRequestEvent', reserves: 'ReservesEvent', review: 'ReviewEvent' }[type.slice(0, type.indexOf('.'))];
    expect(post.requestBody.content['application/json']!.schema).toEqual({ $ref: `#/components/schemas/${family}` });
  }
});

test('the live streams name the schema of each event they send (x-event-schemas)', () => {
  const events = (route: string) => document.paths[route]!.get!.responses['200']!['x-event-schemas'];
  expect(events('/v1/stream/prices')).toEqual({ price: { $ref: '#/components/schemas/AssetPrice' }, dropped: { $ref: '#/components/schemas/StreamDropped' } });
  expect(events('/v1/assets/{symbol}/prices/ohlc/stream')).toEqual({
    candle: { $ref: '#/components/schemas/CandleStreamEvent' },
    dropped: { $ref: '#/components/schemas/StreamDropped' },
  });
});

/** Answers no test can provoke on purpose, and the document itself, which is no example of anything. */
const WITHOUT_EXAMPLE = new Set([
  // 200 instead of 202 only when a concurrent change overtook the request before it was answered.
  'unregisterWallet 200',
  'disablePartnerWallet 200',
  'getOpenApiDocument 200',
]);

test('every example is a real answer that matches its schema, and every operation has one for each of its answers', () => {
  const missing: string[] = [];
  for (const operation of operations) {
    for (const [status, answer] of Object.entries(operation.answers)) {
      if (!answer.schema || WITHOUT_EXAMPLE.has(`${operation.operationId} ${status}`)) continue;
      const example = API_EXAMPLES.answers[operation.operationId]?.[status];
      if (example === undefined) {
        missing.push(`${operation.operationId} ${status}`);
        continue;
      }
      const concrete = operation.path.replace(/\{\w+\}/g, 'x');
      expect(checker.problem(operation.method.toUpperCase(), concrete, Number(status), 'application/json', example)).toBeUndefined();
    }
  }
  expect(missing).toEqual([]);
  for (const code of Object.keys(API_EXAMPLES.errors)) expect(ERROR_CODES).toHaveProperty(code);
});

describe('the answer check refuses what the document does not say', () => {
  const price = '/v1/assets/AAPLon/prices/latest';
  const good = { primaryMarket: { symbol: 'AAPLon', price: '1.5' }, underlyingMarket: { ticker: 'AAPL', price: '1.5' }, timestamp: 1 };

  test.each([
    ['a matching answer', 200, good, undefined],
    ['a missing field', 200, { ...good, timestamp: undefined }, /timestamp/],
    ['an extra field', 200, { ...good, extra: 1 }, /additional properties/],
    ['a number where the document has a decimal string', 200, { ...good, primaryMarket: { symbol: 'AAPLon', price: 1.5 } }, /price/],
    ['an undeclared status', 201, good, /does not declare/],
    ['an error code the operation does not answer with', 404, { code: 'EVENT_NOT_FOUND', message: 'm', documentation: `${TEST_BASE_URL}/docs/errors#event_not_found` }, /code must be equal to one of the allowed values/],
  ])('%s', (_name, status, body, expected) => {
    const problem = checker.problem('GET', price, status, 'application/json', body);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  test('a path with a trailing slash is the same operation, as the router has it', async () => {
    const response = await api.http.get('/v1/tickers/').set('x-api-key', api.keys.read);
    expect(response.status).toBe(200);
    expect(checker.operationOf('GET', '/v1/tickers/')).toBe('listTickers');
  });

  test('in a running app, an answer off the document becomes 500 INTERNAL_ERROR naming the mismatch', async () => {
    // A stored price the document cannot describe (PostgreSQL's numeric NaN) gives an answer that breaks it.
    await api.db.query(`UPDATE latest_prices SET token_price = 'NaN' WHERE symbol = 'MSFTon'`);
    const response = await api.http.get('/v1/assets/MSFTon/prices/latest').set('x-api-key', api.keys.read);
    expect([response.status, response.body.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(response.body.message).toMatch(/does not match the OpenAPI document: GET \/v1\/assets\/\{symbol\}\/prices\/latest answered 200: body\/primaryMarket\/price must match pattern/);
  });
});

describe('partner keys by HTTP basic credentials (key id and secret)', () => {
  const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  test('a partner key may call a partner route with basic credentials; a wrong id or another scope is 401', async () => {
    const partner = await createApiKey(api.db, { name: 'basic partner', scope: 'partner' });
    const ok = await api.http.get('/v1/tokenization/tokenized-assets').set('authorization', basic(partner.key.id, partner.secret));
    expect(ok.status).toBe(200);
    const wrongId = await api.http.get('/v1/tokenization/tokenized-assets').set('authorization', basic('key_000000000000', partner.secret));
    expect([wrongId.status, wrongId.body.code]).toEqual([401, 'INVALID_API_KEY']);
    const admin = await createApiKey(api.db, { name: 'basic admin', scope: 'admin' });
    const notPartner = await api.http.get('/v1/tickers').set('authorization', basic(admin.key.id, admin.secret));
    expect([notPartner.status, notPartner.body.code]).toEqual([401, 'INVALID_API_KEY']);
    expect(notPartner.body.message).toMatch(/x-api-key/);
  });
});
