/**
 * The reference issuer's INVALID_ADDRESS and PAUSED_GM_CHAIN against the real app and PostgreSQL: an account set to
 * trade only through allow-listed wallets is refused an attestation a wallet off its list could use (a Solana
 * `userAddress`, or a wallet registered to it on an EVM chain, in any case), and allowed once an operator lists the
 * wallet; a chain an operator paused refuses attestations and soft quotes until resumed, while reads go on, and shows
 * where operators look (the console's controls, audited; the metrics). The operator writes are idempotent and refuse
 * bad input.
 */
import { getAddress } from 'viem';
import { newYorkTime } from '../../domain/calendar';
import { createProcessMetrics } from '../../metrics/process-metrics';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const SOLANA_WALLET = 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9';
const EVM_WALLET = '0x8ba1f109551bd432803012645ac136ddd64dba72';

let api: TestApi;
let accountId: string;
beforeEach(async () => {
  api = await createTestApi();
  await api.tradeAt(MONDAY_10AM);
  accountId = (await api.db.query<{ id: string }>(`SELECT account_id AS id FROM api_keys WHERE name = 'test write'`)).rows[0]!.id;
});
afterEach(() => api.close());

const valid = { symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5' };
const onSolana = { ...valid, chainId: 'solana-900', userAddress: SOLANA_WALLET };
const attest = (body: object, key = api.keys.write) => api.http.post('/v1/attestations').set('x-api-key', key).send(body);
const soft = (body: object) => api.http.post('/v1/attestations/soft').set('x-api-key', api.keys.write).send(body);
const count = async () => (await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestations')).rows[0]!.n;
const admin = (method: 'get' | 'put' | 'delete' | 'post', path: string, key = api.keys.admin) => api.http[method](path).set('x-api-key', key);
const allowList = () => admin('get', `/v1/accounts/${accountId}/allow-list`);
const requireList = (required: unknown) => admin('put', `/v1/accounts/${accountId}/allow-list`).send({ required });
const wallet = (method: 'put' | 'delete', chain: string, address: string) => admin(method, `/v1/accounts/${accountId}/allow-list/${chain}/${address}`);

function expectRefused(response: { status: number; body: unknown }, status: number, code: string, message: string) {
  expect(response.status).toBe(status);
  expect(response.body).toEqual({ code, message: expect.stringContaining(message), documentation: `${TEST_BASE_URL}/docs/errors#${code.toLowerCase()}` });
}

describe('the wallet allow-list (INVALID_ADDRESS)', () => {
  test('is off by default: the account trades through any wallet, and its list is empty', async () => {
    expect((await allowList()).body).toEqual({ accountId, required: false, wallets: [] });
    expect((await attest(onSolana)).status).toBe(200);
  });

  test('a Solana userAddress off the list is refused before anything is counted, then allowed once listed, refused again once removed', async () => {
    expect((await requireList(true)).body).toEqual({ accountId, required: true, wallets: [] });
    expectRefused(await attest(onSolana), 403, 'INVALID_ADDRESS', 'user_address is not on the allow list');
    expect(await count()).toBe(0);

    const listed = await wallet('put', 'solana-900', SOLANA_WALLET);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ accountId, required: true, wallets: [{ chainId: 'solana-900', address: SOLANA_WALLET, addedAt: expect.any(Number) }] });
    const created = await attest(onSolana);
    expect(created.status).toBe(200);
    expect(await count()).toBe(1);
    // Another wallet of the same account is still off the list.
    expectRefused(await attest({ ...onSolana, userAddress: 'Y4cj1i7GeSUPZUnwSrpxmG92DLCaxS5Z5QnXoDW4VpU' }), 403, 'INVALID_ADDRESS', 'not on the allow list');

    expect((await wallet('delete', 'solana-900', SOLANA_WALLET)).body).toEqual({ accountId, required: true, wallets: [] });
    expectRefused(await attest(onSolana), 403, 'INVALID_ADDRESS', SOLANA_WALLET);
    // An attestation issued before is not withdrawn.
    expect((await api.http.get(`/v1/attestations/${created.body.attestationId}`).set('x-api-key', api.keys.write)).status).toBe(200);
    // Soft quotes name no wallet: the list does not apply to them.
    expect((await soft({ ...valid, chainId: 'solana-900' })).status).toBe(200);
  });

  test('on an EVM chain every wallet registered to the account must be listed, compared in any case', async () => {
    await api.db.query(`INSERT INTO account_wallets (chain, address, account_id, state) VALUES ('ethereum-1', $1, $2, 'registered')`, [EVM_WALLET, accountId]);
    expect((await attest(valid)).status).toBe(200);
    await requireList(true);
    expectRefused(await attest(valid), 403, 'INVALID_ADDRESS', EVM_WALLET);
    // bsc-56 has no wallet of the account's registered: nothing there could use an attestation off the list.
    expect((await attest({ ...valid, chainId: 'bsc-56' })).status).toBe(200);

    const listed = await wallet('put', 'ethereum-1', getAddress(EVM_WALLET));
    expect(listed.body.wallets).toEqual([{ chainId: 'ethereum-1', address: EVM_WALLET, addedAt: expect.any(Number) }]);
    expect((await attest(valid)).status).toBe(200);
    // Listed on one chain only: a wallet registered on bsc-56 is not allowed by the ethereum-1 entry.
    await api.db.query(`INSERT INTO account_wallets (chain, address, account_id, state) VALUES ('bsc-56', $1, $2, 'registered')`, [EVM_WALLET, accountId]);
    expectRefused(await attest({ ...valid, chainId: 'bsc-56' }), 403, 'INVALID_ADDRESS', 'bsc-56');

    await requireList(false);
    expect((await attest({ ...valid, chainId: 'bsc-56' })).status).toBe(200);
  });

  test('registering a wallet off the list is refused while the list is required', async () => {
    await requireList(true);
    const refused = await admin('post', `/v1/accounts/${accountId}/wallets`).send({ chainId: 'ethereum-1', address: getAddress(EVM_WALLET) });
    expectRefused(refused, 403, 'INVALID_ADDRESS', 'not on the allow list');
    expect((await api.db.query('SELECT 1 FROM account_wallets')).rowCount).toBe(0);
  });

  test('operator writes are idempotent: listing twice keeps one entry and its addedAt, removing twice answers the same list', async () => {
    const first = await wallet('put', 'ethereum-1', EVM_WALLET);
    const again = await wallet('put', 'ethereum-1', getAddress(EVM_WALLET));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(first.body.wallets).toHaveLength(1);
    expect((await requireList(true)).body).toEqual((await requireList(true)).body);
    const removed = await wallet('delete', 'ethereum-1', EVM_WALLET);
    expect(removed.body).toEqual({ accountId, required: true, wallets: [] });
    const removedAgain = await wallet('delete', 'ethereum-1', EVM_WALLET);
    expect(removedAgain.status).toBe(200);
    expect(removedAgain.body).toEqual(removed.body);
    // The Solana genesis hash names solana-900 here too.
    expect((await wallet('put', '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', SOLANA_WALLET)).body.wallets).toEqual([
      { chainId: 'solana-900', address: SOLANA_WALLET, addedAt: expect.any(Number) },
    ]);
  });

  test.each([
    ['put', 'ethereum-1', '0x1234', 400, 'INVALID_WALLET_ADDRESS'],
    ['put', 'ethereum-1', SOLANA_WALLET, 400, 'INVALID_WALLET_ADDRESS'],
    ['put', 'solana-900', EVM_WALLET, 400, 'INVALID_WALLET_ADDRESS'],
    ['delete', 'solana-900', 'not-base58!', 400, 'INVALID_WALLET_ADDRESS'],
    ['put', 'polygon-137', EVM_WALLET, 400, 'INVALID_GM_CHAIN'],
  ])('%s on %s with %s is %i %s, and lists nothing', async (method, chain, address, status, code) => {
    const response = await wallet(method as 'put' | 'delete', chain, address);
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
    expect((await api.db.query('SELECT 1 FROM allowed_wallets')).rowCount).toBe(0);
  });

  test('the requirement takes a boolean; an unknown account is 404; a write key is refused', async () => {
    for (const body of [{ required: 'yes' }, {}, { required: true, extra: 1 }]) {
      const response = await admin('put', `/v1/accounts/${accountId}/allow-list`).send(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST_BODY');
    }
    expect((await admin('get', '/v1/accounts/acct_nobody/allow-list')).body.code).toBe('ACCOUNT_NOT_FOUND');
    expect((await admin('put', `/v1/accounts/acct_nobody/allow-list/ethereum-1/${EVM_WALLET}`)).status).toBe(404);
    const byWriteKey = await admin('put', `/v1/accounts/${accountId}/allow-list`, api.keys.write).send({ required: false });
    expect(byWriteKey.status).toBe(403);
    expect(byWriteKey.body.code).toBe('ADMIN_SCOPE_REQUIRED');
    expect((await allowList()).body.required).toBe(false);
  });
});

describe('a chain paused by an operator (PAUSED_GM_CHAIN)', () => {
  const pause = (chain: string, reason: unknown = 'bridge incident') => admin('post', `/v1/status/chains/${chain}/pause`).send({ reason });
  const resume = (chain: string) => admin('post', `/v1/status/chains/${chain}/resume`);
  const onBsc = { ...valid, chainId: 'bsc-56' };

  test('refuses attestations and soft quotes on the chain until resumed; other chains and reads go on', async () => {
    const paused = await pause('bsc-56');
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ chainId: 'bsc-56', paused: true, reason: 'bridge incident', pausedAt: expect.any(String) });

    expectRefused(await attest(onBsc), 400, 'PAUSED_GM_CHAIN', 'chain is paused');
    expectRefused(await soft(onBsc), 400, 'PAUSED_GM_CHAIN', 'bridge incident');
    expect(await count()).toBe(0);
    expect((await attest(valid)).status).toBe(200);
    expect((await api.http.get('/v1/assets/AAPLon/prices/latest').set('x-api-key', api.keys.read)).status).toBe(200);
    const statuses = await api.http.get('/v1/status/chains').set('x-api-key', api.keys.read);
    expect(statuses.body.chains).toEqual([
      { chainId: 'ethereum-1', paused: false, reason: null, pausedAt: null },
      paused.body,
      { chainId: 'solana-900', paused: false, reason: null, pausedAt: null },
    ]);

    expect((await resume('bsc-56')).body).toEqual({ chainId: 'bsc-56', paused: false, reason: null, pausedAt: null });
    expect((await attest(onBsc)).status).toBe(200);
    expect((await soft(onBsc)).status).toBe(200);
  });

  test('Solana, named by its genesis hash too, is paused like the EVM chains', async () => {
    expect((await pause('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')).body.chainId).toBe('solana-900');
    expectRefused(await attest({ ...valid, chainId: 'solana-900', userAddress: SOLANA_WALLET }), 400, 'PAUSED_GM_CHAIN', 'solana-900');
  });

  test('operator writes are idempotent: pausing again replaces the reason and keeps the start, resuming twice changes nothing', async () => {
    const first = await pause('ethereum-1', 'first');
    const second = await pause('ethereum-1', 'second');
    expect(second.body).toEqual({ ...first.body, reason: 'second' });
    expect((await resume('ethereum-1')).body).toEqual((await resume('ethereum-1')).body);
    expect((await resume('bsc-56')).status).toBe(200);
    expect((await attest(valid)).status).toBe(200);
  });

  test.each([
    ['polygon-137', 'a reason', 'INVALID_GM_CHAIN', { reason: 'x' }],
    ['bsc-56', 'no reason', 'INVALID_REQUEST_BODY', {}],
    ['bsc-56', 'a blank reason', 'INVALID_REQUEST_BODY', { reason: '   ' }],
    ['bsc-56', 'a reason over 500 characters', 'INVALID_REQUEST_BODY', { reason: 'x'.repeat(501) }],
  ])('pausing %s with %s is 400 %s, and pauses nothing', async (chain, _case, code, body) => {
    const response = await admin('post', `/v1/status/chains/${chain}/pause`).send(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    expect((await api.db.query('SELECT 1 FROM chain_pauses')).rowCount).toBe(0);
  });

  test('only an admin key pauses a chain', async () => {
    const response = await admin('post', '/v1/status/chains/bsc-56/pause', api.keys.write).send({ reason: 'x' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('ADMIN_SCOPE_REQUIRED');
    expect((await attest({ ...valid, chainId: 'bsc-56' })).status).toBe(200);
  });

  test('the console pauses and resumes a chain, audited, and its overview, controls page and the metrics show it', async () => {
    const signIn = await api.http.post('/console/sign-in').type('form').send({ key: api.keys.admin });
    const cookie = signIn.headers['set-cookie']![0]!.split(';')[0]!;
    const controls = () => api.http.get('/console/controls').set('cookie', cookie);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await controls()).text)![1]!;
    const act = (action: string, fields: Record<string, string>) => api.http.post(`/console/actions/${action}`).set('cookie', cookie).type('form').send({ csrf, ...fields });
    const chainPaused = async () => {
      const metrics = await createProcessMetrics({ role: 'api', db: api.db, poolMax: 1 }).metrics();
      return /^issuer_chain_paused\{chain="bsc-56"\} (\d)$/m.exec(metrics)?.[1];
    };
    expect(await chainPaused()).toBe('0');

    expect((await act('chain-pause', { chainId: 'bsc-56', reason: 'console drill' })).status).toBe(303);
    expectRefused(await attest(onBsc), 400, 'PAUSED_GM_CHAIN', 'console drill');
    expect((await controls()).text).toMatch(/bsc-56<\/td><td><span class="badge badge-paused">paused<\/span><\/td><td>console drill/);
    expect(await chainPaused()).toBe('1');
    expect((await api.http.get('/console').set('cookie', cookie)).text).toContain('chain bsc-56: console drill');

    expect((await act('chain-resume', { chainId: 'bsc-56' })).status).toBe(303);
    expect((await attest(onBsc)).status).toBe(200);
    expect(await chainPaused()).toBe('0');
    const audit = await api.db.query<{ action: string; target: string; outcome: string }>(
      `SELECT action, target, outcome FROM console_audit WHERE action LIKE 'chain-%' ORDER BY id`,
    );
    expect(audit.rows).toEqual([
      { action: 'chain-pause', target: 'chain bsc-56', outcome: 'done' },
      { action: 'chain-resume', target: 'chain bsc-56', outcome: 'done' },
    ]);
  });
});
