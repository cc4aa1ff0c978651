/**
 * The issuer's redeem callback, under the issuer's own account: a pending redeem record in the account linked to
 * the client, then the shares journalled from the issuer's account back to that participant and the record
 * completed, which the issuer finds by its issuer request id; duplicates (same key, same issuer request id, concurrent) have one
 * effect; contradictions and bad input are refused in the documented shape with nothing written; an issuer
 * account short of shares keeps the redemption pending until it holds them.
 */
import request from 'supertest';
import type { Pool } from 'pg';
import { moveShares } from '../../broker/queries/journal';
import { linkClient, seedBrokerSandbox } from '../../broker';
import { basic, CLIENT_ID, position, sandboxForThisFile, tableCounts, waitFor, WALLET, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;

sandboxForThisFile((started) => ({ database, sandbox } = started));

beforeAll(async () => {
  await deposit(database.db, sandbox.issuerAccountId, 'AAPL', '100', 'issuer-aapl');
});

async function deposit(db: Pool, accountId: string, symbol: string, qty: string, key: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await moveShares(client, { toAccount: accountId, symbol, qty, reason: 'deposit', idempotencyKey: `test-deposit:${key}` });
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

let sequence = 0;
function redeemBody(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    issuer_request_id: `redemption-1-0x${sequence.toString(16).padStart(64, '0')}-0`,
    underlying_symbol: 'AAPL',
    token_symbol: 'AAPLon',
    client_id: CLIENT_ID,
    qty: '4.5',
    network: 'ethereum',
    wallet_address: WALLET,
    tx_hash: `0x${sequence.toString(16).padStart(64, '0')}`,
    ...overrides,
  };
}

function callback(body: Record<string, unknown>, key?: string, credential = sandbox.issuerCredential, accountId = sandbox.issuerAccountId) {
  const call = request(sandbox.broker.url).post(`/v1/accounts/${accountId}/tokenization/callback/redeem`).set('authorization', basic(credential));
  if (key) call.set('idempotency-key', key);
  return call.send(body);
}

async function journalFor(issuerRequestId: string) {
  const { rows } = await database.db.query(
    `SELECT j.from_account, j.to_account, j.symbol, j.qty::text AS qty, j.reason FROM broker.journal j
       JOIN broker.tokenization_requests r USING (tokenization_request_id) WHERE r.issuer_request_id = $1`,
    [issuerRequestId],
  );
  return rows;
}

async function completed(id: string) {
  return waitFor(async () => {
    const response = await request(sandbox.broker.url).get(`/v1/accounts/${sandbox.accountId}/tokenization/requests/${id}`).set('authorization', basic(sandbox.participant));
    return response.body.status === 'completed' ? response.body : undefined;
  }, `redeem ${id} to complete`);
}

it('records a pending redeem, journals the shares back to the participant and completes it', async () => {
  const participantBefore = await position(database.db, sandbox.accountId, 'AAPL');
  const body = redeemBody();
  const response = await callback(body, `key-${body.issuer_request_id}`);
  expect(response.status).toBe(201);
  expect(response.body).toMatchObject({
    type: 'redeem',
    status: 'pending',
    transfer_status: 'pending',
    underlying_symbol: 'AAPL',
    token_symbol: 'AAPLon',
    qty: '4.5',
    network: 'ethereum',
    wallet_address: WALLET,
    issuer_request_id: body.issuer_request_id,
    tx_hash: body.tx_hash,
    fees: '0',
  });
  const record = await completed(response.body.tokenization_request_id);
  expect(record.transfer_status).toBe('completed');
  expect(await journalFor(body.issuer_request_id)).toEqual([{ from_account: sandbox.issuerAccountId, to_account: sandbox.accountId, symbol: 'AAPL', qty: '4.500000000', reason: 'redeem' }]);
  expect(Number(await position(database.db, sandbox.accountId, 'AAPL')) - Number(participantBefore)).toBeCloseTo(4.5, 9);
  const listed = await request(sandbox.broker.url).get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?type=redeem`).set('authorization', basic(sandbox.participant));
  expect(listed.body.map((r: { issuer_request_id: string }) => r.issuer_request_id)).toContain(body.issuer_request_id);
});

it("stores the redemption in the account linked to the client, which the issuer polls by issuer request id", async () => {
  const seeded = await seedBrokerSandbox(database.db, {
    brokerCredential: sandbox.participant,
    participants: [{ accountNumber: 'SBX-REDEEM-2', email: 'redeem-2@sandbox.test', symbols: [] }],
  });
  const secondAccountId = seeded.accounts[0]!.accountId;
  await linkClient(database.db, secondAccountId, 'client-redeem-2');
  const body = redeemBody({ client_id: 'client-redeem-2', qty: '2' });
  const response = await callback(body);
  expect(response.status).toBe(201);
  const { rows } = await database.db.query('SELECT account_id FROM broker.tokenization_requests WHERE tokenization_request_id = $1', [response.body.tokenization_request_id]);
  expect(rows[0].account_id).toBe(secondAccountId);

  const polled = await waitFor(async () => {
    const listed = await request(sandbox.broker.url)
      .get(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/requests?issuer_request_id=${body.issuer_request_id}&type=redeem`)
      .set('authorization', basic(sandbox.issuerCredential));
    expect(listed.status).toBe(200);
    return listed.body.length === 1 && listed.body[0].status === 'completed' ? listed.body[0] : undefined;
  }, 'the issuer to see the redemption completed');
  expect(polled).toMatchObject({ tokenization_request_id: response.body.tokenization_request_id, qty: '2', tx_hash: body.tx_hash });
  expect(await position(database.db, secondAccountId, 'AAPL')).toBe('2.000000000');
  // The first account's records do not show it; the second account's do.
  const mine = await request(sandbox.broker.url).get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?issuer_request_id=${body.issuer_request_id}`).set('authorization', basic(sandbox.participant));
  expect(mine.body).toEqual([]);
  const theirs = await request(sandbox.broker.url).get(`/v1/accounts/${secondAccountId}/tokenization/requests/${response.body.tokenization_request_id}`).set('authorization', basic(sandbox.participant));
  expect(theirs.body.status).toBe('completed');
});

it('has one effect for duplicates: a replayed key, another key, concurrent calls', async () => {
  const body = redeemBody({ qty: '1' });
  const first = await callback(body, 'dup-key');
  expect(first.status).toBe(201);
  const replay = await callback(body, 'dup-key');
  expect(replay.status).toBe(201);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toEqual(first.body);
  const otherKey = await callback(body, 'dup-key-2');
  expect(otherKey.status).toBe(200);
  expect(otherKey.body.tokenization_request_id).toBe(first.body.tokenization_request_id);
  const noKey = await Promise.all(Array.from({ length: 6 }, () => callback(body)));
  expect(new Set(noKey.map((response) => response.body.tokenization_request_id))).toEqual(new Set([first.body.tokenization_request_id]));
  await completed(first.body.tokenization_request_id);
  expect(await journalFor(body.issuer_request_id)).toHaveLength(1);
  const { rows } = await database.db.query(`SELECT count(*)::int AS n FROM broker.tokenization_requests WHERE issuer_request_id = $1`, [body.issuer_request_id]);
  expect(rows[0].n).toBe(1);
});

it('keeps one record when distinct callbacks for a fresh redemption race', async () => {
  const body = redeemBody({ qty: '0.25' });
  const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => callback(body, `race-${index}`)));
  expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
  expect(responses.filter((response) => response.status === 200)).toHaveLength(7);
  await completed(responses[0]!.body.tokenization_request_id);
  expect(await journalFor(body.issuer_request_id)).toHaveLength(1);
});

it('refuses the same key with another body, and the same issuer request id with other fields, writing nothing', async () => {
  const body = redeemBody();
  const first = await callback(body, 'reuse-key');
  expect(first.status).toBe(201);
  await completed(first.body.tokenization_request_id);
  const before = await tableCounts(database.db);
  const reused = await callback({ ...body, qty: '9' }, 'reuse-key');
  expect({ status: reused.status, code: reused.body.code }).toEqual({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
  const conflicting = await callback({ ...body, qty: '9' });
  expect({ status: conflicting.status, code: conflicting.body.code }).toEqual({ status: 409, code: 'REQUEST_CONFLICT' });
  expect(await tableCounts(database.db)).toEqual(before);
});

it.each([
  ['a token symbol of another underlying', { token_symbol: 'NVDAon' }, 400, 'INVALID_SYMBOL'],
  ['qty with ten decimals', { qty: '0.0000000001' }, 400, 'INVALID_QTY'],
  ['qty as a number', { qty: 1 }, 400, 'INVALID_QTY'],
  ['an unknown network', { network: 'solana' }, 400, 'INVALID_NETWORK'],
  ['a malformed wallet', { wallet_address: '0xnope' }, 400, 'INVALID_WALLET_ADDRESS'],
  ['a malformed tx hash', { tx_hash: '0x12' }, 400, 'INVALID_TX_HASH'],
  ['a missing issuer_request_id', { issuer_request_id: undefined }, 400, 'INVALID_REQUEST_BODY'],
  ['an unknown field', { note: 'x' }, 400, 'INVALID_REQUEST_BODY'],
  ['a client id linked to no account', { client_id: 'client-nobody' }, 404, 'CLIENT_NOT_LINKED'],
])('refuses %s, writing nothing', async (_name, overrides, status, code) => {
  const before = await tableCounts(database.db);
  const response = await callback(redeemBody(overrides));
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(response.body.documentation).toContain('/docs/errors#');
  expect(await tableCounts(database.db)).toEqual(before);
});

it("takes the callback only from the issuer, under the issuer's own account", async () => {
  const before = await tableCounts(database.db);
  const cases: [ReturnType<typeof callback>, number, string][] = [
    [callback(redeemBody(), undefined, sandbox.participant), 403, 'FORBIDDEN'],
    [callback(redeemBody(), undefined, sandbox.participant, sandbox.accountId), 403, 'FORBIDDEN'],
    [callback(redeemBody(), undefined, { ...sandbox.issuerCredential, secret: 'nope' }), 401, 'UNAUTHORIZED'],
    [callback(redeemBody(), undefined, sandbox.issuerCredential, sandbox.accountId), 404, 'ACCOUNT_NOT_FOUND'],
    [callback(redeemBody(), undefined, sandbox.issuerCredential, '00000000-0000-4000-8000-000000000000'), 404, 'ACCOUNT_NOT_FOUND'],
  ];
  for (const [call, status, code] of cases) {
    const response = await call;
    expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  }
  expect(await tableCounts(database.db)).toEqual(before);
});

it('keeps a redemption pending while the issuer account is short, and completes it once the shares arrive', async () => {
  const body = redeemBody({ underlying_symbol: 'NVDA', token_symbol: 'NVDAon', qty: '3' });
  const response = await callback(body);
  expect(response.status).toBe(201);
  await waitFor(async () => {
    const { rows } = await database.db.query('SELECT attempts, last_error FROM broker.tokenization_requests WHERE tokenization_request_id = $1', [response.body.tokenization_request_id]);
    return rows[0].attempts >= 2 ? rows[0] : undefined;
  }, 'a retried journal attempt');
  const pending = await request(sandbox.broker.url).get(`/v1/accounts/${sandbox.accountId}/tokenization/requests/${response.body.tokenization_request_id}`).set('authorization', basic(sandbox.participant));
  expect(pending.body).toMatchObject({ status: 'pending', transfer_status: 'pending' });
  expect(await journalFor(body.issuer_request_id)).toEqual([]);
  expect(await position(database.db, sandbox.issuerAccountId, 'NVDA')).toBe('0.000000000');

  await deposit(database.db, sandbox.issuerAccountId, 'NVDA', '3', 'issuer-nvda');
  await completed(response.body.tokenization_request_id);
  expect(await journalFor(body.issuer_request_id)).toHaveLength(1);
  expect(await position(database.db, sandbox.issuerAccountId, 'NVDA')).toBe('0.000000000');
});
