/**
 * The client's retries, against a scripted local HTTP server that answers each request as the test says: a 503 with
 * Retry-After is waited out and the read succeeds; a POST attestation whose connection drops is sent again with the
 * same Idempotency-Key and answered as a replay; a 400 is not retried and is a typed IssuerApiError; 429 is retried
 * even where other failures are not; an AbortSignal ends the wait. The calls' types are checked too (`npm run
 * typecheck` fails on a call its operation does not take).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIssuerClient, isIssuerError, IssuerApiError, IssuerNetworkError } from 'tokenized-stock-issuer-client';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Script = (request: Seen, response: ServerResponse, index: number) => void;

let server: Server;
let baseUrl: string;
let script: Script;
let seen: Seen[];

const ERROR_BODY = (code: string, message: string) => JSON.stringify({ code, message, documentation: `http://127.0.0.1/docs/errors#${code.toLowerCase()}` });
const json = (response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
};

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers, body, at: Date.now() };
      seen.push(entry);
      script(entry, response, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

beforeEach(() => {
  seen = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () => createIssuerClient({ baseUrl, apiKey: 'test-key', retry: { baseDelayMs: 10 } });
const ATTESTATION = { attestationId: '1', state: 'outstanding' };

test('a 503 with Retry-After: 1 is waited out (at least a second), then the read succeeds', async () => {
  script = (_request, response, index) => (index === 0 ? json(response, 503, ERROR_BODY('SERVICE_UNAVAILABLE', 'down'), { 'retry-after': '1' }) : json(response, 200, JSON.stringify(ATTESTATION)));
  await expect(client().attestations.get('1')).resolves.toEqual(ATTESTATION);
  expect(seen.map((request) => request.url)).toEqual(['/v1/attestations/1', '/v1/attestations/1']);
  expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  expect(seen[0]!.headers['x-api-key']).toBe('test-key');
});

test('a POST attestation whose connection drops is sent again with the same Idempotency-Key, answered as a replay', async () => {
  script = (request, response, index) => {
    if (index === 0) return response.socket!.destroy();
    json(response, 200, JSON.stringify({ ...ATTESTATION, echoed: JSON.parse(request.body) }), { 'idempotent-replayed': 'true' });
  };
  const answer = await client().attestations.create({ symbol: 'SPYon', side: 'buy', tokenAmount: '1' });
  expect(answer).toMatchObject({ echoed: { symbol: 'SPYon', side: 'buy', tokenAmount: '1' } });
  expect(seen).toHaveLength(2);
  const [first, second] = seen.map((request) => request.headers['idempotency-key']);
  expect(first).toMatch(/^[0-9a-f-]{36}$/);
  expect(second).toBe(first);
  expect(seen[1]!.body).toBe(seen[0]!.body);
});

test("the caller's Idempotency-Key is the one sent; two logical calls send two keys", async () => {
  script = (_request, response) => json(response, 200, JSON.stringify(ATTESTATION));
  await client().attestations.create({ symbol: 'SPYon', side: 'buy', tokenAmount: '1' }, { idempotencyKey: 'order-42' });
  await client().attestations.create({ symbol: 'SPYon', side: 'buy', tokenAmount: '1' });
  await client().attestations.create({ symbol: 'SPYon', side: 'buy', tokenAmount: '1' });
  const keys = seen.map((request) => request.headers['idempotency-key']);
  expect(keys[0]).toBe('order-42');
  expect(keys[1]).not.toBe(keys[2]);
});

test('a 400 is not retried: an IssuerApiError with its code, message, documentation and status', async () => {
  script = (_request, response) => json(response, 400, ERROR_BODY('INVALID_SYMBOL', 'symbol: unknown'));
  const error: unknown = await client().attestations.create({ symbol: 'NOPE', side: 'buy', tokenAmount: '1' }).catch((caught: unknown) => caught);
  expect(seen).toHaveLength(1);
  expect(error).toBeInstanceOf(IssuerApiError);
  expect(isIssuerError(error, 'INVALID_SYMBOL')).toBe(true);
  expect(isIssuerError(error, 'MAX_ATTESTATIONS')).toBe(false);
  if (!isIssuerError(error, 'INVALID_SYMBOL')) throw error;
  expect({ code: error.code, message: error.message, status: error.status, operationId: error.operationId }).toEqual({ code: 'INVALID_SYMBOL', message: 'symbol: unknown', status: 400, operationId: 'createAttestation' });
  expect(error.documentation).toMatch(/#invalid_symbol$/);
});

test('a 503 on an operation without a retry class is not retried; a 429 is, since nothing was done', async () => {
  script = (_request, response) => json(response, 503, ERROR_BODY('SERVICE_UNAVAILABLE', 'down'), { 'retry-after': '0' });
  const unavailable: unknown = await client().call('createSoftQuote', { body: { symbol: 'SPYon', side: 'buy', tokenAmount: '1' } }).catch((caught: unknown) => caught);
  expect(isIssuerError(unavailable, 'SERVICE_UNAVAILABLE') && unavailable.retryAfterMs).toBe(0);
  expect(seen).toHaveLength(1);

  seen = [];
  script = (_request, response, index) => (index < 2 ? json(response, 429, ERROR_BODY('RATE_LIMITED', 'slow down'), { 'retry-after': '0' }) : json(response, 200, '{"price":"1"}'));
  await expect(client().call('createSoftQuote', { body: { symbol: 'SPYon', side: 'buy', tokenAmount: '1' } })).resolves.toEqual({ price: '1' });
  expect(seen).toHaveLength(3);
});

test('past maxAttempts the last answer is the error; no answer at all is an IssuerNetworkError', async () => {
  script = (_request, response) => json(response, 503, ERROR_BODY('SERVICE_UNAVAILABLE', 'down'), { 'retry-after': '0' });
  await expect(createIssuerClient({ baseUrl, retry: { maxAttempts: 3, baseDelayMs: 1 } }).call('getHealth')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  expect(seen).toHaveLength(3);

  seen = [];
  script = (_request, response) => response.socket!.destroy();
  await expect(createIssuerClient({ baseUrl, retry: { maxAttempts: 2, baseDelayMs: 1 } }).call('getHealth')).rejects.toBeInstanceOf(IssuerNetworkError);
  expect(seen).toHaveLength(2);
});

test('an AbortSignal ends the wait for a long Retry-After', async () => {
  const aborted = new AbortController();
  script = (_request, response) => {
    json(response, 503, ERROR_BODY('SERVICE_UNAVAILABLE', 'down'), { 'retry-after': '20' });
    setImmediate(() => aborted.abort(new Error('the caller gave up')));
  };
  await expect(client().attestations.get('1', { signal: aborted.signal })).rejects.toBeInstanceOf(IssuerNetworkError);
  expect(seen).toHaveLength(1);
});

test('a call is typed by its operation: its parameters, its body, its answer and its error codes', async () => {
  script = (_request, response) => json(response, 200, JSON.stringify(ATTESTATION));
  const typed = client();
  // @ts-expect-error: createAttestation takes a body
  await typed.call('createAttestation').catch(() => undefined);
  // @ts-expect-error: getAttestation has no path parameter `symbol`
  await typed.call('getAttestation', { path: { symbol: 'SPYon' } }).catch(() => undefined);
  // @ts-expect-error: `side` is buy or sell
  await typed.attestations.create({ symbol: 'SPYon', side: 'hold', tokenAmount: '1' }).catch(() => undefined);
  const record = await typed.call('getAttestation', { path: { attestationId: '1' } });
  const state: 'outstanding' | 'executing' | 'executed' | 'expired' = record.state;
  expect(state).toBe('outstanding');
  // @ts-expect-error: no such error code
  expect(isIssuerError(new Error('x'), 'NOT_A_CODE')).toBe(false);
});
