/**
 * The sandbox's authorized-participant endpoints over real HTTP and a real PostgreSQL: happy, error and security
 * cases per route (each refusal a 4xx `{code, message, documentation}` that writes nothing), and `Idempotency-Key`
 * on mint (replay, another body, concurrent duplicates).
 */
import request from 'supertest';
import { brokerStackEntry, ISSUER_ACCOUNT_ID, newBrokerCredential, sandboxAccountId, seedBrokerSandbox, startBroker, type Credential } from '../../broker';
import { BAD_CHECKSUM_WALLET, basic, CLIENT_ID, ISSUER_ID, sandboxForThisFile, tableCounts, WALLET, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;
let other: Credential;
let otherAccountId: string;
let unlinkedAccountId: string;

const mintBody = { underlying_symbol: 'AAPL', qty: '2.5', issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET };

sandboxForThisFile((started) => ({ database, sandbox } = started));

beforeAll(async () => {
  // The issuer stays unavailable here, so no mint moves past `submit` while a test counts rows.
  sandbox.issuer.behave(() => ({ status: 503, body: { code: 'UNAVAILABLE', message: 'down for the test' } }));
  other = newBrokerCredential('other');
  const seeded = await seedBrokerSandbox(database.db, { brokerCredential: other, participants: [{ accountNumber: 'SBX-OTHER', email: 'other@sandbox.test' }] });
  otherAccountId = seeded.accounts[0]!.accountId;
  const unlinked = await seedBrokerSandbox(database.db, {
    brokerCredential: sandbox.participant,
    participants: [{ accountNumber: 'SBX-UNLINKED', email: 'unlinked@sandbox.test', symbols: ['AAPL'] }],
  });
  unlinkedAccountId = unlinked.accounts[0]!.accountId;
});

function http() {
  return request(sandbox.broker.url);
}

function expectError(response: request.Response, status: number, code: string): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(typeof response.body.message).toBe('string');
  expect(response.body.documentation).toBe(`${sandbox.broker.url}/docs/errors#${code.toLowerCase()}`);
}

describe('POST /v1/accounts/{account_id}/tokenization/mint', () => {
  const path = () => `/v1/accounts/${sandbox.accountId}/tokenization/mint`;

  it('records a pending mint signed by the broker and answers it with 201', async () => {
    const before = await tableCounts(database.db);
    const response = await http().post(path()).set('authorization', basic(sandbox.participant)).send({ ...mintBody, client_request_id: 'my-ref-1' });
    expect(response.status).toBe(201);
    expect(response.headers['idempotent-replayed']).toBeUndefined();
    expect(response.body).toMatchObject({
      type: 'mint',
      status: 'pending',
      underlying_symbol: 'AAPL',
      token_symbol: 'AAPLon',
      qty: '2.5',
      issuer: ISSUER_ID,
      network: 'ethereum',
      wallet_address: WALLET,
      client_request_id: 'my-ref-1',
      fees: '0',
      tx_hash: null,
      reason: null,
    });
    expect(response.body.tokenization_request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(response.body.created_at)).not.toBeNaN();
    expect((await tableCounts(database.db)).requests).toBe(before.requests! + 1);
    const { rows } = await database.db.query('SELECT account_id, nonce::text, broker_signature, submission FROM broker.tokenization_requests WHERE tokenization_request_id = $1', [
      response.body.tokenization_request_id,
    ]);
    expect(rows[0].account_id).toBe(sandbox.accountId);
    expect(rows[0].broker_signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(JSON.parse(rows[0].submission)).toMatchObject({ client_id: CLIENT_ID, nonce: rows[0].nonce, qty: '2.5' });
  });

  it('canonicalises the quantity and checksums the wallet', async () => {
    const response = await http()
      .post(path())
      .set('authorization', basic(sandbox.participant))
      .send({ ...mintBody, qty: '000.5'.replace(/^00/, ''), wallet_address: WALLET.toLowerCase() });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ qty: '0.5', wallet_address: WALLET });
  });

  const refusals: [string, Record<string, unknown> | string, number, string, Record<string, string>?][] = [
    ['qty zero', { ...mintBody, qty: '0' }, 400, 'INVALID_QTY'],
    ['qty zero with decimals', { ...mintBody, qty: '0.000000000' }, 400, 'INVALID_QTY'],
    ['qty with ten decimals', { ...mintBody, qty: '1.0000000001' }, 400, 'INVALID_QTY'],
    ['qty as a JSON number', { ...mintBody, qty: 5 }, 400, 'INVALID_QTY'],
    ['qty negative', { ...mintBody, qty: '-1' }, 400, 'INVALID_QTY'],
    ['qty in exponent form', { ...mintBody, qty: '1e3' }, 400, 'INVALID_QTY'],
    ['qty missing', { ...mintBody, qty: undefined }, 400, 'INVALID_QTY'],
    ['network not supported', { ...mintBody, network: 'solana' }, 400, 'INVALID_NETWORK'],
    ['wallet too short', { ...mintBody, wallet_address: '0x1234' }, 400, 'INVALID_WALLET_ADDRESS'],
    ['wallet with a bad checksum', { ...mintBody, wallet_address: BAD_CHECKSUM_WALLET }, 400, 'INVALID_WALLET_ADDRESS'],
    ['symbol in lower case', { ...mintBody, underlying_symbol: 'aapl' }, 400, 'INVALID_SYMBOL'],
    ['issuer missing', { ...mintBody, issuer: undefined }, 400, 'INVALID_REQUEST_BODY'],
    ['unknown field', { ...mintBody, price: '1' }, 400, 'INVALID_REQUEST_BODY'],
    ['client_request_id too long', { ...mintBody, client_request_id: 'x'.repeat(129) }, 400, 'INVALID_REQUEST_BODY'],
    ['body not JSON', '{"qty":', 400, 'MALFORMED_JSON'],
    ['another issuer', { ...mintBody, issuer: 'someone-else' }, 422, 'UNKNOWN_ISSUER'],
    ['Idempotency-Key too long', mintBody, 400, 'INVALID_IDEMPOTENCY_KEY', { 'idempotency-key': 'k'.repeat(129) }],
    ['Idempotency-Key with a control character', mintBody, 400, 'INVALID_IDEMPOTENCY_KEY', { 'idempotency-key': 'a\tb' }],
    ['Idempotency-Key empty', mintBody, 400, 'INVALID_IDEMPOTENCY_KEY', { 'idempotency-key': '' }],
    ['Idempotency-Key blank', mintBody, 400, 'INVALID_IDEMPOTENCY_KEY', { 'idempotency-key': '   ' }],
  ];

  it.each(refusals)('refuses %s and writes nothing', async (_name, body, status, code, headers = {}) => {
    const before = await tableCounts(database.db);
    const response = await http()
      .post(path())
      .set('authorization', basic(sandbox.participant))
      .set('content-type', 'application/json')
      .set(headers)
      .send(typeof body === 'string' ? body : JSON.stringify(body));
    expectError(response, status, code);
    expect(await tableCounts(database.db)).toEqual(before);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await http().post(path()).set('authorization', basic(sandbox.participant)).set('content-type', 'text/plain').send('qty=1');
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  const security: [string, () => Record<string, string>, () => string, number, string][] = [
    ['no credentials', () => ({}), () => path(), 401, 'UNAUTHORIZED'],
    ['a wrong secret', () => ({ authorization: basic({ ...sandbox.participant, secret: 'wrong' }) }), () => path(), 401, 'UNAUTHORIZED'],
    ['an unknown key', () => ({ authorization: basic({ key: 'nobody', secret: sandbox.participant.secret }) }), () => path(), 401, 'UNAUTHORIZED'],
    ['a malformed Authorization header', () => ({ authorization: 'Basic ***' }), () => path(), 401, 'UNAUTHORIZED'],
    ['a bearer token', () => ({ authorization: `Bearer ${sandbox.participant.secret}` }), () => path(), 401, 'UNAUTHORIZED'],
    ['the issuer credential', () => ({ authorization: basic(sandbox.issuerCredential) }), () => path(), 403, 'FORBIDDEN'],
    ["another participant's account", () => ({ authorization: basic(sandbox.participant) }), () => `/v1/accounts/${otherAccountId}/tokenization/mint`, 404, 'ACCOUNT_NOT_FOUND'],
    ["the issuer's own account", () => ({ authorization: basic(sandbox.participant) }), () => `/v1/accounts/${sandbox.issuerAccountId}/tokenization/mint`, 404, 'ACCOUNT_NOT_FOUND'],
    ['an unknown account', () => ({ authorization: basic(sandbox.participant) }), () => '/v1/accounts/00000000-0000-4000-8000-000000000000/tokenization/mint', 404, 'ACCOUNT_NOT_FOUND'],
    ['a malformed account id', () => ({ authorization: basic(sandbox.participant) }), () => '/v1/accounts/not-a-uuid/tokenization/mint', 400, 'INVALID_PARAMETER'],
    ['an account not linked to the issuer', () => ({ authorization: basic(sandbox.participant) }), () => `/v1/accounts/${unlinkedAccountId}/tokenization/mint`, 422, 'ACCOUNT_NOT_LINKED'],
  ];

  it.each(security)('refuses %s and writes nothing', async (_name, headers, target, status, code) => {
    const before = await tableCounts(database.db);
    const response = await http().post(target()).set(headers()).send(mintBody);
    expectError(response, status, code);
    if (status === 401) expect(response.headers['www-authenticate']).toMatch(/^Basic /);
    expect(await tableCounts(database.db)).toEqual(before);
  });

  it('refuses a network without an issuer contract with 422 NETWORK_UNAVAILABLE', async () => {
    const ethereumOnly = await startBroker({
      db: database.db,
      host: '127.0.0.1',
      port: 0,
      issuerApiUrl: sandbox.issuer.url,
      partnerApiKey: sandbox.partnerApiKey,
      issuerId: ISSUER_ID,
      issuerCredential: sandbox.issuerCredential,
      brokerCredential: sandbox.participant,
      signer: sandbox.signer,
      issuerContracts: { ethereum: '0x1111111111111111111111111111111111111111' },
      logger: (await import('pino')).default({ level: 'silent' }),
      marketPrice: async () => undefined,
    });
    try {
      const before = await tableCounts(database.db);
      const response = await request(ethereumOnly.url).post(path()).set('authorization', basic(sandbox.participant)).send({ ...mintBody, network: 'binance' });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('NETWORK_UNAVAILABLE');
      expect(await tableCounts(database.db)).toEqual(before);
    } finally {
      await ethereumOnly.stop();
    }
  });

  describe('Idempotency-Key', () => {
    it('answers a replay with the first result and Idempotent-Replayed: true', async () => {
      const key = `replay-${Date.now()}`;
      const first = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(mintBody);
      expect(first.status).toBe(201);
      const before = await tableCounts(database.db);
      // The same body with its fields in another order is the same request.
      const reordered = Object.fromEntries(Object.entries(mintBody).reverse());
      const replay = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(reordered);
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(first.body);
      expect(await tableCounts(database.db)).toEqual(before);
    });

    it('refuses the same key with another body with 422 and writes nothing', async () => {
      const key = `other-body-${Date.now()}`;
      expect((await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(mintBody)).status).toBe(201);
      const before = await tableCounts(database.db);
      const response = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send({ ...mintBody, qty: '3' });
      expectError(response, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await tableCounts(database.db)).toEqual(before);
    });

    it('keeps one record for concurrent duplicates', async () => {
      const key = `concurrent-${Date.now()}`;
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(mintBody)),
      );
      expect(responses.map((response) => response.status)).toEqual(Array(8).fill(201));
      const ids = new Set(responses.map((response) => response.body.tokenization_request_id));
      expect(ids.size).toBe(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(7);
      const { rows } = await database.db.query('SELECT count(*)::int AS n FROM broker.tokenization_requests WHERE tokenization_request_id = $1', [[...ids][0]]);
      expect(rows[0].n).toBe(1);
    });

    it('does not let a refused request claim the key', async () => {
      const key = `refused-first-${Date.now()}`;
      const refused = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send({ ...mintBody, issuer: 'nobody' });
      expect(refused.status).toBe(422);
      const accepted = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(mintBody);
      expect(accepted.status).toBe(201);
      expect(accepted.headers['idempotent-replayed']).toBeUndefined();
    });

    it('scopes keys to the account', async () => {
      const key = `scoped-${Date.now()}`;
      const mine = await http().post(path()).set('authorization', basic(sandbox.participant)).set('idempotency-key', key).send(mintBody);
      await database.db.query('UPDATE broker.accounts SET client_id = $2 WHERE account_id = $1', [otherAccountId, 'client-other']);
      const theirs = await http()
        .post(`/v1/accounts/${otherAccountId}/tokenization/mint`)
        .set('authorization', basic(other))
        .set('idempotency-key', key)
        .send({ ...mintBody, qty: '7' });
      expect(theirs.status).toBe(201);
      expect(theirs.body.tokenization_request_id).not.toBe(mine.body.tokenization_request_id);
    });
  });
});

describe('GET /v1/accounts/{account_id}/tokenization/requests', () => {
  it('lists the account’s records newest first, filtered by status and type', async () => {
    const created = [];
    for (const qty of ['1', '2', '3']) {
      created.push((await http().post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`).set('authorization', basic(sandbox.participant)).send({ ...mintBody, qty })).body);
    }
    const all = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests`).set('authorization', basic(sandbox.participant));
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    const times = all.body.map((record: { created_at: string }) => Date.parse(record.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all.body.slice(0, 3).map((record: { qty: string }) => record.qty)).toEqual(['3', '2', '1']);

    await database.db.query(`UPDATE broker.tokenization_requests SET status = 'rejected' WHERE tokenization_request_id = $1`, [created[1].tokenization_request_id]);
    const rejected = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?status=rejected`).set('authorization', basic(sandbox.participant));
    expect(rejected.body.map((record: { tokenization_request_id: string }) => record.tokenization_request_id)).toEqual([created[1].tokenization_request_id]);
    const redeems = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?type=redeem`).set('authorization', basic(sandbox.participant));
    expect(redeems.body).toEqual([]);
    const limited = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?limit=2&type=mint`).set('authorization', basic(sandbox.participant));
    expect(limited.body).toHaveLength(2);
  });

  it("shows the issuer every participant's records under its own account, filtered as for a participant", async () => {
    const mine = (await http().post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`).set('authorization', basic(sandbox.participant)).send({ ...mintBody, qty: '11' })).body;
    await database.db.query('UPDATE broker.accounts SET client_id = $2 WHERE account_id = $1 AND client_id IS NULL', [otherAccountId, 'client-other']);
    const theirs = (await http().post(`/v1/accounts/${otherAccountId}/tokenization/mint`).set('authorization', basic(other)).send({ ...mintBody, qty: '12' })).body;
    const base = `/v1/accounts/${sandbox.issuerAccountId}/tokenization/requests`;
    const all = await http().get(`${base}?limit=500`).set('authorization', basic(sandbox.issuerCredential));
    expect(all.status).toBe(200);
    const ids = all.body.map((record: { tokenization_request_id: string }) => record.tokenization_request_id);
    expect(ids).toEqual(expect.arrayContaining([mine.tokenization_request_id, theirs.tokenization_request_id]));
    const { rows } = await database.db.query<{ n: number }>('SELECT count(*)::int AS n FROM broker.tokenization_requests');
    expect(ids).toHaveLength(rows[0]!.n);
    const limited = await http().get(`${base}?limit=1&type=mint&status=pending`).set('authorization', basic(sandbox.issuerCredential));
    expect(limited.body.map((record: { tokenization_request_id: string }) => record.tokenization_request_id)).toEqual([theirs.tokenization_request_id]);
    expect((await http().get(`${base}?type=redeem`).set('authorization', basic(sandbox.issuerCredential))).body).toEqual([]);
  });

  it("shows a participant's records to nobody else: not another participant, not the issuer through the participant's account", async () => {
    const path = `/v1/accounts/${sandbox.accountId}/tokenization/requests`;
    expectError(await http().get(path).set('authorization', basic(other)), 404, 'ACCOUNT_NOT_FOUND');
    expectError(await http().get(path).set('authorization', basic(sandbox.issuerCredential)), 404, 'ACCOUNT_NOT_FOUND');
    expectError(await http().get(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/requests`).set('authorization', basic(sandbox.participant)), 404, 'ACCOUNT_NOT_FOUND');
  });

  it.each([
    ['status=done', 'INVALID_PARAMETER'],
    ['type=burn', 'INVALID_PARAMETER'],
    ['limit=0', 'INVALID_PARAMETER'],
    ['limit=501', 'INVALID_PARAMETER'],
    ['sort=asc', 'INVALID_PARAMETER'],
  ])('refuses ?%s', async (query, code) => {
    const response = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?${query}`).set('authorization', basic(sandbox.participant));
    expectError(response, 400, code);
  });

  it('refuses without credentials', async () => {
    expectError(await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests`), 401, 'UNAUTHORIZED');
  });
});

describe('GET /v1/accounts/{account_id}/tokenization/requests/{tokenization_request_id}', () => {
  it('answers one record, to its participant under its account and to the issuer under its own', async () => {
    const created = (await http().post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`).set('authorization', basic(sandbox.participant)).send(mintBody)).body;
    const reads: [Credential, string][] = [
      [sandbox.participant, sandbox.accountId],
      [sandbox.issuerCredential, sandbox.issuerAccountId],
    ];
    for (const [credential, accountId] of reads) {
      const response = await http().get(`/v1/accounts/${accountId}/tokenization/requests/${created.tokenization_request_id}`).set('authorization', basic(credential));
      expect(response.status).toBe(200);
      expect(response.body.tokenization_request_id).toBe(created.tokenization_request_id);
      expect(response.body.qty).toBe('2.5');
    }
    const throughParticipant = await http()
      .get(`/v1/accounts/${sandbox.accountId}/tokenization/requests/${created.tokenization_request_id}`)
      .set('authorization', basic(sandbox.issuerCredential));
    expectError(throughParticipant, 404, 'ACCOUNT_NOT_FOUND');
    const unknown = await http().get(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/requests/00000000-0000-4000-8000-000000000000`).set('authorization', basic(sandbox.issuerCredential));
    expectError(unknown, 404, 'REQUEST_NOT_FOUND');
  });

  it('does not show a record through another account', async () => {
    const created = (await http().post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`).set('authorization', basic(sandbox.participant)).send(mintBody)).body;
    const response = await http().get(`/v1/accounts/${otherAccountId}/tokenization/requests/${created.tokenization_request_id}`).set('authorization', basic(other));
    expectError(response, 404, 'REQUEST_NOT_FOUND');
    const throughOther = await http().get(`/v1/accounts/${otherAccountId}/tokenization/requests/${created.tokenization_request_id}`).set('authorization', basic(sandbox.participant));
    expectError(throughOther, 404, 'ACCOUNT_NOT_FOUND');
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const base = `/v1/accounts/${sandbox.accountId}/tokenization/requests`;
    expectError(await http().get(`${base}/00000000-0000-4000-8000-000000000000`).set('authorization', basic(sandbox.participant)), 404, 'REQUEST_NOT_FOUND');
    expectError(await http().get(`${base}/nope`).set('authorization', basic(sandbox.participant)), 400, 'INVALID_PARAMETER');
  });
});

describe('GET /v1/accounts/{account_id} and PUT …/tokenization/client', () => {
  it('shows the account with its positions and linked client id', async () => {
    const response = await http().get(`/v1/accounts/${sandbox.accountId}`).set('authorization', basic(sandbox.participant));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ account_id: sandbox.accountId, account_number: 'SBX-000001', email: 'ap@sandbox.test', client_id: CLIENT_ID });
    for (const symbol of ['AAPL', 'NVDA', 'TSLA', 'MSFT', 'AMZN']) expect(Number(response.body.positions[symbol])).toBeGreaterThan(0);
  });

  it("shows the issuer its own account, and no participant's", async () => {
    const own = await http().get(`/v1/accounts/${sandbox.issuerAccountId}`).set('authorization', basic(sandbox.issuerCredential));
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ account_id: sandbox.issuerAccountId, account_number: 'SBX-ISSUER', client_id: null });
    expectError(await http().get(`/v1/accounts/${sandbox.accountId}`).set('authorization', basic(sandbox.issuerCredential)), 404, 'ACCOUNT_NOT_FOUND');
    expectError(await http().get(`/v1/accounts/${sandbox.issuerAccountId}`).set('authorization', basic(sandbox.participant)), 404, 'ACCOUNT_NOT_FOUND');
  });

  it('stores a client id once; the same again changes nothing; another is 409', async () => {
    const seeded = await seedBrokerSandbox(database.db, { brokerCredential: sandbox.participant, participants: [{ accountNumber: 'SBX-LINK', email: 'link@sandbox.test', symbols: [] }] });
    const path = `/v1/accounts/${seeded.accounts[0]!.accountId}/tokenization/client`;
    const linked = await http().put(path).set('authorization', basic(sandbox.participant)).send({ client_id: 'client-link' });
    expect(linked.status).toBe(200);
    expect(linked.body.client_id).toBe('client-link');
    expect((await http().put(path).set('authorization', basic(sandbox.participant)).send({ client_id: 'client-link' })).status).toBe(200);
    expectError(await http().put(path).set('authorization', basic(sandbox.participant)).send({ client_id: 'client-else' }), 409, 'CLIENT_ALREADY_LINKED');
    const { rows } = await database.db.query('SELECT client_id FROM broker.accounts WHERE account_id = $1', [seeded.accounts[0]!.accountId]);
    expect(rows[0].client_id).toBe('client-link');
  });

  it('refuses a client id another account holds, the issuer credential, another participant and a bad body, writing nothing', async () => {
    const path = `/v1/accounts/${unlinkedAccountId}/tokenization/client`;
    const cases: [Record<string, string>, unknown, number, string][] = [
      [{ authorization: basic(sandbox.participant) }, { client_id: CLIENT_ID }, 409, 'CLIENT_ALREADY_LINKED'],
      [{ authorization: basic(sandbox.issuerCredential) }, { client_id: 'fresh' }, 403, 'FORBIDDEN'],
      [{ authorization: basic(other) }, { client_id: 'fresh' }, 404, 'ACCOUNT_NOT_FOUND'],
      [{ authorization: basic(sandbox.participant) }, { client_id: '' }, 400, 'INVALID_REQUEST_BODY'],
      [{ authorization: basic(sandbox.participant) }, { client_id: 42 }, 400, 'INVALID_REQUEST_BODY'],
      [{}, { client_id: 'fresh' }, 401, 'UNAUTHORIZED'],
    ];
    for (const [headers, body, status, code] of cases) {
      const before = await tableCounts(database.db);
      expectError(await http().put(path).set(headers).send(body as object), status, code);
      expect(await tableCounts(database.db)).toEqual(before);
    }
  });
});

describe('routing', () => {
  it('answers an unknown route 404 and a wrong method 405 in the documented shape', async () => {
    expectError(await http().get('/v1/nothing'), 404, 'NOT_FOUND');
    expectError(await http().delete(`/v1/accounts/${sandbox.accountId}/tokenization/mint`).set('authorization', basic(sandbox.participant)), 405, 'METHOD_NOT_ALLOWED');
  });

  it('serves the error reference', async () => {
    const response = await http().get('/docs/errors');
    expect(response.status).toBe(200);
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 })]));
  });
});

describe('what a stack needs to know', () => {
  it("names the issuer's account the same in every sandbox, in the seed result and the stack entry", async () => {
    expect(sandbox.issuerAccountId).toBe(ISSUER_ACCOUNT_ID);
    expect(ISSUER_ACCOUNT_ID).toBe(sandboxAccountId('SBX-ISSUER'));
    const entry = brokerStackEntry({
      url: sandbox.broker.url,
      brokerCredential: sandbox.participant,
      signer: sandbox.signer,
      issuerAccountId: sandbox.seeded.issuerAccount.accountId,
      accounts: sandbox.seeded.accounts,
    });
    expect(entry).toMatchObject({ url: sandbox.broker.url, key: sandbox.participant.key, signer: sandbox.signer.address, issuerAccountId: ISSUER_ACCOUNT_ID });
    // The id in the entry is where the issuer's credential reads.
    const read = await http().get(`/v1/accounts/${entry.issuerAccountId}/tokenization/requests?limit=1`).set('authorization', basic(sandbox.issuerCredential));
    expect(read.status).toBe(200);
  });
});
