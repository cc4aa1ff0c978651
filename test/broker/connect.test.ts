/**
 * Connecting an account through the sandbox: the sandbox calls the issuer's connect endpoint (a real local HTTP
 * server) with the account's email and number under the partner key, and stores the client id it answers exactly as
 * PUT …/tokenization/client would; the issuer's 404, 409, refusals and silence are answered in the documented shape
 * with nothing stored; an account already linked is answered without calling the issuer again.
 */
import request from 'supertest';
import { newBrokerCredential, seedBrokerSandbox, type Credential } from '../../broker';
import { basic, CLIENT_ID, CONNECT_PATH, ISSUANCE_PATH, ISSUER_ID, sandboxForThisFile, tableCounts, waitFor, WALLET, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;
let other: Credential;
let otherAccountId: string;

sandboxForThisFile((started) => ({ database, sandbox } = started), { issuerTimeoutMs: 500 });

beforeAll(async () => {
  other = newBrokerCredential('other');
  const seeded = await seedBrokerSandbox(database.db, { brokerCredential: other, participants: [{ accountNumber: 'SBX-OTHER', email: 'other@sandbox.test', symbols: [] }] });
  otherAccountId = seeded.accounts[0]!.accountId;
});

beforeEach(() => sandbox.issuer.behave(() => undefined));

let sequence = 0;
/** A fresh unlinked account of the test participant, with 10 AAPL. */
async function freshAccount(): Promise<{ accountId: string; accountNumber: string; email: string }> {
  sequence += 1;
  const seed = { accountNumber: `SBX-CONNECT-${sequence}`, email: `connect-${sequence}@sandbox.test`, symbols: ['AAPL'], minimumShares: '10' };
  const seeded = await seedBrokerSandbox(database.db, { brokerCredential: sandbox.participant, participants: [seed] });
  return { accountId: seeded.accounts[0]!.accountId, accountNumber: seed.accountNumber, email: seed.email };
}

/** `credential` null: no Authorization header. */
function connect(accountId: string, body: unknown = { issuer: ISSUER_ID }, credential: Credential | null = sandbox.participant) {
  const call = request(sandbox.broker.url).post(`/v1/accounts/${accountId}/tokenization/connect`);
  if (credential) call.set('authorization', basic(credential));
  return call.send(body as object);
}

function connectCallsFor(email: string) {
  return sandbox.issuer.callsTo(CONNECT_PATH).filter((call) => (JSON.parse(call.body) as { email: string }).email === email);
}

async function storedClientId(accountId: string): Promise<string | null> {
  const { rows } = await database.db.query<{ client_id: string | null }>('SELECT client_id FROM broker.accounts WHERE account_id = $1', [accountId]);
  return rows[0]!.client_id;
}

function expectError(response: request.Response, status: number, code: string): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(typeof response.body.message).toBe('string');
  expect(response.body.documentation).toBe(`${sandbox.broker.url}/docs/errors#${code.toLowerCase()}`);
}

it("calls the issuer's connect with the account's email and number, stores the client id and answers the account", async () => {
  const account = await freshAccount();
  sandbox.issuer.registerClient(account.email, 'client-connected-1');
  const response = await connect(account.accountId);
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    account_id: account.accountId,
    account_number: account.accountNumber,
    email: account.email,
    client_id: 'client-connected-1',
    positions: { AAPL: '10' },
  });
  const calls = connectCallsFor(account.email);
  expect(calls).toHaveLength(1);
  expect(calls[0]!.method).toBe('POST');
  expect(calls[0]!.headers['x-api-key']).toBe(sandbox.partnerApiKey);
  expect(calls[0]!.headers['content-type']).toBe('application/json');
  expect(JSON.parse(calls[0]!.body)).toEqual({ email: account.email, account: account.accountNumber });
  expect(await storedClientId(account.accountId)).toBe('client-connected-1');

  // Linked, the account mints, and the issuance names the client the issuer answered.
  const mint = await request(sandbox.broker.url)
    .post(`/v1/accounts/${account.accountId}/tokenization/mint`)
    .set('authorization', basic(sandbox.participant))
    .send({ underlying_symbol: 'AAPL', qty: '1', issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET });
  expect(mint.status).toBe(201);
  const issuance = await waitFor(
    async () => sandbox.issuer.callsTo(ISSUANCE_PATH).find((call) => JSON.parse(call.body).tokenization_request_id === mint.body.tokenization_request_id),
    'the issuance',
  );
  expect(JSON.parse(issuance.body).client_id).toBe('client-connected-1');
});

it('answers an account already linked as it is, without calling the issuer again', async () => {
  const account = await freshAccount();
  sandbox.issuer.registerClient(account.email, 'client-connected-2');
  const first = await connect(account.accountId);
  expect(first.status).toBe(200);
  const before = await tableCounts(database.db);
  const again = await connect(account.accountId);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);
  expect(connectCallsFor(account.email)).toHaveLength(1);
  expect(await tableCounts(database.db)).toEqual(before);

  // The development account, linked by hand (PUT …/tokenization/client), is answered the same way.
  const dev = await connect(sandbox.accountId);
  expect({ status: dev.status, client_id: dev.body.client_id }).toEqual({ status: 200, client_id: CLIENT_ID });
  expect(connectCallsFor('ap@sandbox.test')).toHaveLength(0);
});

const issuerRefusals: [string, () => void, number, string][] = [
  ['an email the issuer does not know (404)', () => undefined, 404, 'ISSUER_CLIENT_NOT_FOUND'],
  ['a client the issuer already linked (409)', () => sandbox.issuer.behave(() => ({ status: 409, body: { code: 'ACCOUNT_ALREADY_LINKED', message: 'linked' } })), 409, 'CLIENT_ALREADY_LINKED'],
  ['an issuer refusing the partner key (401)', () => sandbox.issuer.behave(() => ({ status: 401, body: { code: 'INVALID_API_KEY', message: 'Invalid API key' } })), 502, 'ISSUER_REFUSED'],
  ['a client id another account holds', () => sandbox.issuer.behave(() => ({ status: 201, body: { client_id: CLIENT_ID } })), 409, 'CLIENT_ALREADY_LINKED'],
  ['an issuer answering 2xx without a client id', () => sandbox.issuer.behave(() => ({ status: 200, body: { ok: true } })), 503, 'ISSUER_UNAVAILABLE'],
];

it.each(issuerRefusals)('answers %s in the documented shape, storing nothing', async (_name, arrange, status, code) => {
  const account = await freshAccount();
  arrange();
  const before = await tableCounts(database.db);
  const response = await connect(account.accountId);
  expectError(response, status, code);
  expect(connectCallsFor(account.email)).toHaveLength(1);
  expect(await storedClientId(account.accountId)).toBeNull();
  expect(await tableCounts(database.db)).toEqual(before);
});

it('answers an unavailable issuer 503 with Retry-After, storing nothing, and connects once it answers', async () => {
  const account = await freshAccount();
  sandbox.issuer.registerClient(account.email, 'client-connected-3');
  sandbox.issuer.behave(() => ({ status: 503, body: 'Service Unavailable' }));
  const before = await tableCounts(database.db);
  const unavailable = await connect(account.accountId);
  expectError(unavailable, 503, 'ISSUER_UNAVAILABLE');
  expect(unavailable.headers['retry-after']).toBe('5');
  expect(await tableCounts(database.db)).toEqual(before);

  // An issuer that does not answer within the sandbox's timeout (500 ms here) is as unavailable.
  sandbox.issuer.behave(() => ({ status: 201, body: { client_id: 'too-late' }, delayMs: 1_500 }));
  expectError(await connect(account.accountId), 503, 'ISSUER_UNAVAILABLE');
  expect(await storedClientId(account.accountId)).toBeNull();

  sandbox.issuer.behave(() => undefined);
  const connected = await connect(account.accountId);
  expect({ status: connected.status, client_id: connected.body.client_id }).toEqual({ status: 200, client_id: 'client-connected-3' });
});

it('refuses another issuer with 422 UNKNOWN_ISSUER, without calling the issuer', async () => {
  const account = await freshAccount();
  sandbox.issuer.registerClient(account.email, 'client-never');
  expectError(await connect(account.accountId, { issuer: 'someone-else' }), 422, 'UNKNOWN_ISSUER');
  expect(connectCallsFor(account.email)).toHaveLength(0);
  expect(await storedClientId(account.accountId)).toBeNull();
});

it('refuses bad bodies and credentials that may not act on the account, without calling the issuer', async () => {
  const account = await freshAccount();
  sandbox.issuer.registerClient(account.email, 'client-never-2');
  const cases: [string, () => request.Test, number, string][] = [
    ['no body', () => connect(account.accountId, {}), 400, 'INVALID_REQUEST_BODY'],
    ['an unknown field', () => connect(account.accountId, { issuer: ISSUER_ID, email: 'x@y.z' }), 400, 'INVALID_REQUEST_BODY'],
    ['issuer as a number', () => connect(account.accountId, { issuer: 7 }), 400, 'INVALID_REQUEST_BODY'],
    ['no credentials', () => connect(account.accountId, undefined, null), 401, 'UNAUTHORIZED'],
    ['the issuer credential', () => connect(account.accountId, undefined, sandbox.issuerCredential), 403, 'FORBIDDEN'],
    ['another participant', () => connect(account.accountId, undefined, other), 404, 'ACCOUNT_NOT_FOUND'],
    ["another participant's account", () => connect(otherAccountId), 404, 'ACCOUNT_NOT_FOUND'],
    ["the issuer's account", () => connect(sandbox.issuerAccountId), 404, 'ACCOUNT_NOT_FOUND'],
    ['a malformed account id', () => connect('nope'), 400, 'INVALID_PARAMETER'],
  ];
  for (const [name, call, status, code] of cases) {
    const response = await call();
    expect({ name, status: response.status, code: response.body.code }).toEqual({ name, status, code });
  }
  expect(connectCallsFor(account.email)).toHaveLength(0);
  expect(await storedClientId(account.accountId)).toBeNull();
});
