/**
 * GET /v1/attestations: the calling account's attestations (also those whose POST answer never arrived), filtered by
 * state, symbol and time, paged by cursor; never another account's.
 */
import { createApiKey } from '../../db/queries/api-keys';
import { newYorkTime } from '../../domain/calendar';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');

let api: TestApi;
const created: { attestationId: string; symbol: string; createdAt: number }[] = [];

beforeAll(async () => {
  api = await createTestApi();
  // five attestations a minute apart: AAPLon, MSFTon, AAPLon, MSFTon, AAPLon
  for (const [index, symbol] of ['AAPLon', 'MSFTon', 'AAPLon', 'MSFTon', 'AAPLon'].entries()) {
    const createdAt = MONDAY_10AM + index * 60_000;
    await api.tradeAt(createdAt);
    const response = await api.http.post('/v1/attestations').set('x-api-key', api.keys.write).send({ symbol, side: 'buy', tokenAmount: '1', duration: 'long' });
    expect(response.status).toBe(200);
    created.push({ attestationId: response.body.attestationId, symbol, createdAt });
  }
  // one executed
  await api.db.query(`UPDATE attestations SET state = 'executed', execution_tx_hash = '0xabc', state_changed_at = $2 WHERE attestation_id = $1::numeric`, [
    created[1]!.attestationId,
    MONDAY_10AM + 90_000,
  ]);
  // another account's
  await api.http.post('/v1/attestations').set('x-api-key', api.keys.admin).send({ symbol: 'AAPLon', side: 'buy', tokenAmount: '1' });
});
afterAll(() => api.close());

const list = (query = '', key = api.keys.write) => api.http.get(`/v1/attestations${query}`).set('x-api-key', key);
const ids = (body: { attestations: { attestationId: string }[] }) => body.attestations.map((attestation) => attestation.attestationId);
const newestFirst = () => [...created].reverse().map((attestation) => attestation.attestationId);

test('lists only the calling account\'s attestations, newest first, each as GET /v1/attestations/{id} shows it', async () => {
  api.setNow(MONDAY_10AM + 5 * 60_000);
  const response = await list();
  expect(response.status).toBe(200);
  expect(ids(response.body)).toEqual(newestFirst());
  expect(response.body.nextCursor).toBeNull();
  const one = await api.http.get(`/v1/attestations/${created[1]!.attestationId}`).set('x-api-key', api.keys.write);
  expect(response.body.attestations[3]).toEqual(one.body);
  expect(one.body.state).toBe('executed');
});

test.each([
  ['?state=executed', () => [created[1]!.attestationId]],
  ['?symbol=MSFTon', () => [created[3]!.attestationId, created[1]!.attestationId]],
  ['?symbol=MSFTon&state=outstanding', () => [created[3]!.attestationId]],
  [`?createdAfter=${MONDAY_10AM + 60_000}&createdBefore=${MONDAY_10AM + 3 * 60_000}`, () => [created[2]!.attestationId, created[1]!.attestationId]],
  [`?createdAfter=${new Date(MONDAY_10AM + 4 * 60_000).toISOString()}`, () => [created[4]!.attestationId]],
])('filters %s', async (query, expected) => {
  // every long attestation is still outstanding
  api.setNow(MONDAY_10AM + 4 * 60_000 + 10_000);
  const response = await list(query);
  expect(response.status).toBe(200);
  expect(ids(response.body)).toEqual(expected());
});

test('an outstanding attestation past its expiry is listed as expired, before its workflow records it', async () => {
  api.setNow(MONDAY_10AM + 24 * 3_600_000);
  const expired = await list('?state=expired');
  expect(ids(expired.body)).toEqual(newestFirst().filter((id) => id !== created[1]!.attestationId));
  expect(expired.body.attestations.every((attestation: { state: string }) => attestation.state === 'expired')).toBe(true);
  expect((await list('?state=outstanding')).body.attestations).toEqual([]);
});

test('cursor paging walks every attestation once', async () => {
  api.setNow(MONDAY_10AM + 5 * 60_000);
  const seen: string[] = [];
  let cursor: string | null = '';
  let pages = 0;
  while (cursor !== null) {
    const response = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.status).toBe(200);
    expect(response.body.attestations.length).toBeLessThanOrEqual(2);
    seen.push(...ids(response.body));
    cursor = response.body.nextCursor;
    pages += 1;
  }
  expect(pages).toBe(3);
  expect(seen).toEqual(newestFirst());
});

test.each([
  ['?state=pending', 'INVALID_PARAMETER', 'state'],
  ['?symbol=AAPL', 'INVALID_SYMBOL', 'Symbol'],
  ['?limit=0', 'INVALID_PARAMETER', 'limit'],
  ['?limit=101', 'INVALID_PARAMETER', 'limit'],
  ['?cursor=bm90LWEtY3Vyc29y', 'INVALID_PARAMETER', 'cursor'],
  ['?createdAfter=yesterday', 'INVALID_PARAMETER', 'createdAfter'],
  ['?accountId=someone-else', 'INVALID_PARAMETER', 'accountId'],
])('%s is 400 %s', async (query, code, mentions) => {
  const response = await list(query);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ code, message: expect.stringContaining(mentions), documentation: `${TEST_BASE_URL}/docs/errors#${code.toLowerCase()}` });
});

test('a key without an account (read) is 403 READ_ONLY_API_KEY; a new account sees an empty list', async () => {
  const read = await list('', api.keys.read);
  expect(read.status).toBe(403);
  expect(read.body.code).toBe('READ_ONLY_API_KEY');
  const stranger = (await createApiKey(api.db, { name: 'stranger', scope: 'write' })).secret;
  const response = await list('', stranger);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ attestations: [], nextCursor: null });
});
