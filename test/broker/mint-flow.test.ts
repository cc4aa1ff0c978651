/**
 * The mint flow the sandbox drives against a real local HTTP server standing in for the issuer: the signed
 * submission (headers, body, EIP-712 signature), the share journal, the confirm, the issuer's refusal, retries of
 * the same bytes on 503, a position too small, concurrent mints against one position, a restart with work
 * pending, and the issuer's mint callback with its duplicates.
 */
import request from 'supertest';
import { recoverTypedDataAddress, type Address } from 'viem';
import { linkClient, mintRequestTypedData, seedBrokerSandbox } from '../../broker';
import { basic, CLIENT_ID, CONFIRM_PATH, ISSUANCE_PATH, ISSUER_CONTRACTS, ISSUER_ID, position, recordRow, sandboxForThisFile, tableCounts, waitFor, WALLET, type BrokerTestDb, type RecordedCall, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;

sandboxForThisFile((started) => ({ database, sandbox } = started));

beforeEach(() => sandbox.issuer.behave(() => undefined));

function http() {
  return request(sandbox.broker.url);
}

async function mint(body: Record<string, unknown>): Promise<string> {
  const response = await http()
    .post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`)
    .set('authorization', basic(sandbox.participant))
    .send({ issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET, ...body });
  expect(response.status).toBe(201);
  return response.body.tokenization_request_id as string;
}

function callsFor(path: string, id: string): RecordedCall[] {
  return sandbox.issuer.callsTo(path).filter((call) => (JSON.parse(call.body) as { tokenization_request_id: string }).tokenization_request_id === id);
}

async function settled(id: string) {
  return waitFor(async () => {
    const row = await recordRow(database.db, id);
    return row?.step === 'done' ? row : undefined;
  }, `request ${id} to finish its steps`);
}

async function journalRows(id: string) {
  const { rows } = await database.db.query(
    'SELECT from_account, to_account, symbol, qty::text AS qty, reason FROM broker.journal WHERE tokenization_request_id = $1',
    [id],
  );
  return rows;
}

function mintCallback(id: string, body: Record<string, unknown> = {}, key?: string) {
  const call = http()
    .post(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/callback/mint`)
    .set('authorization', basic(sandbox.issuerCredential));
  if (key) call.set('idempotency-key', key);
  return call.send({ tokenization_request_id: id, client_id: CLIENT_ID, wallet_address: WALLET, tx_hash: `0x${'ab'.repeat(32)}`, network: 'ethereum', ...body });
}

describe('a mint the issuer accepts', () => {
  let id: string;
  const aaplBefore: Record<string, string> = {};

  beforeAll(async () => {
    aaplBefore.participant = await position(database.db, sandbox.accountId, 'AAPL');
    aaplBefore.issuer = await position(database.db, sandbox.issuerAccountId, 'AAPL');
    id = await mint({ underlying_symbol: 'AAPL', qty: '10.123456789', client_request_id: 'flow-1' });
    await settled(id);
  });

  it('is submitted once with the partner key, its own id as Idempotency-Key, and the documented body', async () => {
    const calls = callsFor(ISSUANCE_PATH, id);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.method).toBe('POST');
    expect(call.headers['x-api-key']).toBe(sandbox.partnerApiKey);
    expect(call.headers['idempotency-key']).toBe(id);
    expect(call.headers['content-type']).toBe('application/json');
    const body = JSON.parse(call.body);
    expect(Object.keys(body).sort()).toEqual(
      ['broker_signature', 'client_id', 'created', 'network', 'nonce', 'qty', 'token_symbol', 'tokenization_request_id', 'underlying_symbol', 'wallet_address'].sort(),
    );
    expect(body).toMatchObject({ tokenization_request_id: id, qty: '10.123456789', underlying_symbol: 'AAPL', token_symbol: 'AAPLon', network: 'ethereum', client_id: CLIENT_ID, wallet_address: WALLET });
    expect(typeof body.created).toBe('number');
    expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60);
    expect(body.nonce).toMatch(/^\d+$/);
    expect(body.broker_signature).toMatch(/^0x[0-9a-f]{130}$/);
  });

  it('carries an EIP-712 signature that recovers to the broker signer', async () => {
    const body = JSON.parse(callsFor(ISSUANCE_PATH, id)[0]!.body);
    const typed = mintRequestTypedData(
      {
        tokenizationRequestId: id,
        underlyingSymbol: 'AAPL',
        tokenSymbol: 'AAPLon',
        qty: body.qty,
        wallet: WALLET,
        network: 'ethereum',
        clientAccountId: CLIENT_ID,
        created: body.created,
        nonce: BigInt(body.nonce),
      },
      ISSUER_CONTRACTS.ethereum,
    );
    expect(typed.domain).toEqual({ name: 'TokenizedStockIssuer', version: '1', chainId: 1, verifyingContract: ISSUER_CONTRACTS.ethereum });
    expect(typed.message.qty).toBe(10_123_456_789n);
    expect(await recoverTypedDataAddress({ ...typed, signature: body.broker_signature })).toBe(sandbox.signer.address);
    // Another quantity (or any other field) recovers to someone else.
    const tampered = { ...typed, message: { ...typed.message, qty: typed.message.qty + 1n } };
    expect(await recoverTypedDataAddress({ ...tampered, signature: body.broker_signature })).not.toBe(sandbox.signer.address);
  });

  it('journals the shares from the participant to the issuer account once, then confirms', async () => {
    expect(await journalRows(id)).toEqual([{ from_account: sandbox.accountId, to_account: sandbox.issuerAccountId, symbol: 'AAPL', qty: '10.123456789', reason: 'mint' }]);
    expect(Number(await position(database.db, sandbox.accountId, 'AAPL'))).toBeCloseTo(Number(aaplBefore.participant) - 10.123456789, 9);
    expect(await position(database.db, sandbox.accountId, 'AAPL')).toBe('989.876543211');
    expect(await position(database.db, sandbox.issuerAccountId, 'AAPL')).toBe('10.123456789');
    const confirms = callsFor(CONFIRM_PATH, id);
    expect(confirms).toHaveLength(1);
    const row = await recordRow(database.db, id);
    expect(JSON.parse(confirms[0]!.body)).toEqual({ tokenization_request_id: id, issuer_request_id: row!.issuer_request_id, status: 'completed' });
    expect(confirms[0]!.headers['idempotency-key']).toBe(`${id}-confirm`);
    expect(confirms[0]!.headers['x-api-key']).toBe(sandbox.partnerApiKey);
  });

  it('stays pending with the transfer completed until the issuer calls back', async () => {
    const response = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests/${id}`).set('authorization', basic(sandbox.participant));
    expect(response.body).toMatchObject({ status: 'pending', transfer_status: 'completed', tx_hash: null, client_request_id: 'flow-1' });
    expect(response.body.issuer_request_id).toMatch(/^ir_/);
  });

  it('turns completed with the tx hash on the mint callback; duplicates have one effect', async () => {
    const txHash = `0x${'Ab'.repeat(32)}`;
    const first = await mintCallback(id, { tx_hash: txHash }, `mint-cb-${id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'completed', transfer_status: 'completed', tx_hash: txHash.toLowerCase() });
    const updatedAt = first.body.updated_at;

    const replay = await mintCallback(id, { tx_hash: txHash }, `mint-cb-${id}`);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await mintCallback(id, { tx_hash: txHash }, `another-key-${id}`);
    expect(again.status).toBe(200);
    expect(again.body.updated_at).toBe(updatedAt);
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => mintCallback(id, { tx_hash: txHash })));
    expect(concurrent.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);

    expect(await journalRows(id)).toHaveLength(1);
    const listed = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests?status=completed`).set('authorization', basic(sandbox.participant));
    expect(listed.body.map((record: { tokenization_request_id: string }) => record.tokenization_request_id)).toContain(id);
  });

  it('refuses a callback that contradicts the completed mint, writing nothing', async () => {
    const before = await recordRow(database.db, id);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ tx_hash: `0x${'cd'.repeat(32)}` }, 409, 'REQUEST_CONFLICT'],
      [{ wallet_address: '0x0000000000000000000000000000000000000001' }, 409, 'REQUEST_CONFLICT'],
      [{ network: 'binance' }, 409, 'REQUEST_CONFLICT'],
      [{ client_id: 'someone-else' }, 422, 'CLIENT_MISMATCH'],
      [{ tx_hash: '0x1234' }, 400, 'INVALID_TX_HASH'],
      [{ tokenization_request_id: '00000000-0000-4000-8000-000000000000' }, 404, 'REQUEST_NOT_FOUND'],
      [{ tokenization_request_id: 'abc' }, 400, 'INVALID_REQUEST_BODY'],
      [{ extra: true }, 400, 'INVALID_REQUEST_BODY'],
    ];
    for (const [body, status, code] of cases) {
      const response = await mintCallback(id, body);
      expect({ body, status: response.status, code: response.body.code }).toEqual({ body, status, code });
    }
    expect(await recordRow(database.db, id)).toEqual(before);
  });

  it("refuses a client id linked to another participant's account, writing nothing", async () => {
    const seeded = await seedBrokerSandbox(database.db, {
      brokerCredential: sandbox.participant,
      participants: [{ accountNumber: 'SBX-CB-OTHER', email: 'cb-other@sandbox.test', symbols: [] }],
    });
    await linkClient(database.db, seeded.accounts[0]!.accountId, 'client-cb-other');
    const before = await recordRow(database.db, id);
    const response = await mintCallback(id, { tx_hash: `0x${'ee'.repeat(32)}`, client_id: 'client-cb-other' });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 422, code: 'CLIENT_MISMATCH' });
    expect(await recordRow(database.db, id)).toEqual(before);
  });

  it("takes callbacks only from the issuer credential, under the issuer's own account", async () => {
    const body = { tokenization_request_id: id, client_id: CLIENT_ID, wallet_address: WALLET, tx_hash: `0x${'ab'.repeat(32)}`, network: 'ethereum' };
    for (const accountId of [sandbox.accountId, '00000000-0000-4000-8000-000000000000']) {
      const elsewhere = await http().post(`/v1/accounts/${accountId}/tokenization/callback/mint`).set('authorization', basic(sandbox.issuerCredential)).send(body);
      expect({ status: elsewhere.status, code: elsewhere.body.code }).toEqual({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    }
    const asParticipant = await http()
      .post(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/callback/mint`)
      .set('authorization', basic(sandbox.participant))
      .send({ tokenization_request_id: id, client_id: CLIENT_ID, wallet_address: WALLET, tx_hash: `0x${'ef'.repeat(32)}`, network: 'ethereum' });
    expect(asParticipant.status).toBe(403);
    expect(asParticipant.body.code).toBe('FORBIDDEN');
    const anonymous = await http().post(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/callback/mint`).send({});
    expect(anonymous.status).toBe(401);
    const wrongSecret = await http()
      .post(`/v1/accounts/${sandbox.issuerAccountId}/tokenization/callback/mint`)
      .set('authorization', basic({ ...sandbox.issuerCredential, secret: sandbox.participant.secret }))
      .send({});
    expect(wrongSecret.status).toBe(401);
  });
});

describe('a mint the issuer refuses', () => {
  it('is rejected with the issuer’s reason, with no share movement and no confirm', async () => {
    sandbox.issuer.behave((call) =>
      call.path === ISSUANCE_PATH ? { status: 422, body: { code: 'WALLET_NOT_ENABLED', message: 'The wallet is not enabled for this client on ethereum' } } : undefined,
    );
    const before = await position(database.db, sandbox.accountId, 'NVDA');
    const id = await mint({ underlying_symbol: 'NVDA', qty: '5' });
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'rejected', transfer_status: 'rejected', issuer_request_id: null });
    expect(row.reason).toBe('WALLET_NOT_ENABLED: The wallet is not enabled for this client on ethereum');
    expect(callsFor(ISSUANCE_PATH, id)).toHaveLength(1);
    expect(callsFor(CONFIRM_PATH, id)).toHaveLength(0);
    expect(await journalRows(id)).toEqual([]);
    expect(await position(database.db, sandbox.accountId, 'NVDA')).toBe(before);
    const view = await http().get(`/v1/accounts/${sandbox.accountId}/tokenization/requests/${id}`).set('authorization', basic(sandbox.participant));
    expect(view.body).toMatchObject({ status: 'rejected', transfer_status: 'rejected', reason: row.reason });
    // A rejected mint cannot be called back as minted.
    const callback = await mintCallback(id);
    expect(callback.status).toBe(409);
  });
});

describe('an issuer that answers 503', () => {
  it('gets the same body under the same Idempotency-Key until it answers, for the submission and the confirm', async () => {
    let issuance = 0;
    let confirm = 0;
    sandbox.issuer.behave((call) => {
      if (call.path === ISSUANCE_PATH && ++issuance <= 2) return { status: 503, body: { code: 'UNAVAILABLE', message: 'try later' } };
      if (call.path === CONFIRM_PATH && ++confirm <= 2) return { status: 503, body: 'Service Unavailable' };
      return undefined;
    });
    const id = await mint({ underlying_symbol: 'MSFT', qty: '1' });
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'pending', transfer_status: 'completed' });
    for (const path of [ISSUANCE_PATH, CONFIRM_PATH]) {
      const calls = callsFor(path, id);
      expect(calls).toHaveLength(3);
      expect(new Set(calls.map((call) => call.body)).size).toBe(1);
      expect(new Set(calls.map((call) => call.headers['idempotency-key'])).size).toBe(1);
    }
    expect(await journalRows(id)).toHaveLength(1);
  });
});

describe('a mint larger than the position', () => {
  it('is rejected without a movement, and the rejection is confirmed to the issuer', async () => {
    const before = await position(database.db, sandbox.accountId, 'AMZN');
    const id = await mint({ underlying_symbol: 'AMZN', qty: '1000000' });
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'rejected', transfer_status: 'rejected' });
    expect(row.reason).toMatch(/^insufficient position/);
    expect(await journalRows(id)).toEqual([]);
    expect(await position(database.db, sandbox.accountId, 'AMZN')).toBe(before);
    const confirms = callsFor(CONFIRM_PATH, id);
    expect(confirms).toHaveLength(1);
    expect(JSON.parse(confirms[0]!.body)).toEqual({ tokenization_request_id: id, issuer_request_id: row.issuer_request_id, status: 'rejected', reason: row.reason });
  });

  it('never lets concurrent mints take the position below zero', async () => {
    const start = await position(database.db, sandbox.accountId, 'TSLA');
    expect(start).toBe('1000.000000000');
    const ids = await Promise.all(Array.from({ length: 7 }, () => mint({ underlying_symbol: 'TSLA', qty: '300' })));
    const rows = await Promise.all(ids.map(settled));
    expect(rows.filter((row) => row.transfer_status === 'completed')).toHaveLength(3);
    expect(rows.filter((row) => row.transfer_status === 'rejected')).toHaveLength(4);
    expect(await position(database.db, sandbox.accountId, 'TSLA')).toBe('100.000000000');
    const { rows: journal } = await database.db.query(`SELECT coalesce(sum(qty), 0)::text AS total FROM broker.journal WHERE symbol = 'TSLA' AND reason = 'mint'`);
    expect(journal[0].total).toBe('900.000000000');
  });
});

describe('a mint callback before the shares are journalled', () => {
  it('is refused with 409 and changes nothing', async () => {
    sandbox.issuer.behave(() => ({ status: 503, body: {} }));
    const id = await mint({ underlying_symbol: 'AAPL', qty: '1' });
    const response = await mintCallback(id);
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('REQUEST_CONFLICT');
    expect(await recordRow(database.db, id)).toMatchObject({ status: 'pending', transfer_status: 'pending', tx_hash: null });
    sandbox.issuer.behave(() => undefined);
    await settled(id);
  });
});

describe('a restart with work pending', () => {
  it('finds the pending work in SQL and finishes it with the same submission', async () => {
    sandbox.issuer.behave(() => ({ status: 503, body: {} }));
    const id = await mint({ underlying_symbol: 'NVDA', qty: '2' });
    await waitFor(async () => (callsFor(ISSUANCE_PATH, id).length >= 1 ? true : undefined), 'a first submission');
    await sandbox.broker.stop();
    const callsWhileStopped = callsFor(ISSUANCE_PATH, id).length;
    // A second request left behind by a process that died holding its lease.
    await database.db.query(`UPDATE broker.tokenization_requests SET lease_owner = 'dead-process', lease_until = now() + interval '300 milliseconds' WHERE tokenization_request_id = $1`, [id]);
    sandbox.issuer.behave(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(callsFor(ISSUANCE_PATH, id)).toHaveLength(callsWhileStopped);

    await sandbox.restart();
    const row = await settled(id);
    expect(row).toMatchObject({ status: 'pending', transfer_status: 'completed' });
    const calls = callsFor(ISSUANCE_PATH, id);
    expect(new Set(calls.map((call) => call.body)).size).toBe(1);
    expect(await journalRows(id)).toHaveLength(1);
    expect(callsFor(CONFIRM_PATH, id)).toHaveLength(1);
  });

  it('does not repeat a finished step after a restart', async () => {
    const id = await mint({ underlying_symbol: 'MSFT', qty: '3' });
    await settled(id);
    const before = { issuance: callsFor(ISSUANCE_PATH, id).length, confirm: callsFor(CONFIRM_PATH, id).length, counts: await tableCounts(database.db) };
    await sandbox.broker.stop();
    await sandbox.restart();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect({ issuance: callsFor(ISSUANCE_PATH, id).length, confirm: callsFor(CONFIRM_PATH, id).length, counts: await tableCounts(database.db) }).toEqual(before);
  });
});

describe('the issuer contract address per network', () => {
  it('signs a binance mint for chain 56 and the binance issuer contract', async () => {
    const id = await mint({ underlying_symbol: 'AAPL', qty: '1', network: 'binance' });
    await settled(id);
    const body = JSON.parse(callsFor(ISSUANCE_PATH, id)[0]!.body);
    const typed = mintRequestTypedData(
      {
        tokenizationRequestId: id,
        underlyingSymbol: 'AAPL',
        tokenSymbol: 'AAPLon',
        qty: '1',
        wallet: WALLET,
        network: 'binance',
        clientAccountId: CLIENT_ID,
        created: body.created,
        nonce: BigInt(body.nonce),
      },
      ISSUER_CONTRACTS.binance as Address,
    );
    expect(typed.domain.chainId).toBe(56);
    expect(await recoverTypedDataAddress({ ...typed, signature: body.broker_signature })).toBe(sandbox.signer.address);
  });
});
