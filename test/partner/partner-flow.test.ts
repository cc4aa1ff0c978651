/**
 * The partner (brokerage) in-kind flow end to end, through HTTP only, on a local chain with the brokerage sandbox:
 * a participant mints AAPL through the broker and the wallet receives qty ÷ multiplier tokens; each refusal; a pause
 * holding settlement; a redemption (approve + redeem from the wallet) ending with the shares back in the
 * participant's account; duplicates, the broker down and the worker restarted mid-flow — one effect each, asserted on
 * chain balances, journal rows and callbacks. The amounts are small, so every session's limit takes them: the test
 * runs at the real time, as the chain and the sandbox do.
 */
import { randomBytes } from 'node:crypto';
import { maxUint256, parseEventLogs, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { evmNetwork, publicClientFor } from '../../chains/networks';
import { issuerAbi, stockTokenAbi } from '../../contracts/abi';
import { issuerDomain, signMintRequest } from '../../contracts/mint-request';
import { ROLES } from '../../contracts/roles';
import { onChainBrokerSigners } from '../../partner/broker-signature';
import { sharesForTokens, tokensForShares } from '../../domain/partner';
import { partnerMintWorkflowId } from '../../temporal/workflow-ids';
import { eventually, recordProductHistory } from '../support/temporal';
import { brokerGet, brokerPost, ISSUER_ID, startPartnerStack, WALLET_INDEX, type PartnerStack } from './support';

let stack: PartnerStack;

beforeAll(async () => {
  stack = await startPartnerStack();
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

const admin = () => stack.api.keys.admin;
const issuerRequest = (id: string) => stack.api.http.get(`/v1/tokenization/requests/${id}`).set('x-api-key', admin());
const brokerRecord = (id: string) => brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${id}`);
const positions = async (): Promise<Record<string, string>> => (await brokerGet(stack, `/v1/accounts/${stack.accountId}`)).body.positions;
const tokenBalance = (symbol: string) =>
  stack.chain.client.readContract({ address: stack.tokens[symbol]!, abi: stockTokenAbi, functionName: 'balanceOf', args: [stack.wallet] });
const countRows = async (sql: string, values: unknown[] = []) => (await stack.database.db.query<{ n: number }>(sql, values)).rows[0]!.n;

/** Sets every session's AAPL mint limit (the flow's limits are configuration in SQL). */
async function setMintLimits(limitUsd: string): Promise<void> {
  await stack.database.db.query(`UPDATE partner_session_limits SET limit_usd = $1 WHERE underlying = 'AAPL' AND kind = 'mint'`, [limitUsd]);
}

async function restoreMintLimits(): Promise<void> {
  await stack.database.db.query(
    `UPDATE partner_session_limits SET limit_usd = CASE session WHEN 'regular' THEN 2000000 WHEN 'overnight' THEN 500000 WHEN 'offhours' THEN 250000 ELSE 1000000 END
      WHERE underlying = 'AAPL' AND kind = 'mint'`,
  );
}

function mint(qty: string, overrides: Record<string, unknown> = {}, idempotencyKey?: string) {
  return brokerPost(
    stack,
    `/v1/accounts/${stack.accountId}/tokenization/mint`,
    { underlying_symbol: 'AAPL', qty, issuer: ISSUER_ID, network: 'ethereum', wallet_address: stack.wallet, ...overrides },
    idempotencyKey,
  );
}

/** Waits for the broker's record to leave `pending`; answers it. */
async function settled(tokenizationRequestId: string, timeoutMs = 60_000) {
  return await eventually(async () => {
    const record = (await brokerRecord(tokenizationRequestId)).body;
    expect(record.status).not.toBe('pending');
    return record;
  }, timeoutMs);
}

/** IssuerMint logs of one tokenization request on chain. */
async function mintLogs(tokenizationRequestId: string) {
  const logs = await stack.chain.client.getContractEvents({ address: stack.chain.deployment.issuer, abi: issuerAbi, eventName: 'IssuerMint', fromBlock: 0n });
  return logs.filter((log) => log.args.tokenizationRequestId === tokenizationRequestId);
}

describe('a partner mint', () => {
  test('delivers qty ÷ multiplier tokens to the wallet, completes the broker record with the tx hash and takes the shares', async () => {
    const before = await positions();
    const balanceBefore = await tokenBalance('AAPLon');
    const submitted = await mint('2.5', {}, 'mint-happy');
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ type: 'mint', status: 'pending', qty: '2.5', underlying_symbol: 'AAPL', token_symbol: 'AAPLon' });
    const id = submitted.body.tokenization_request_id as string;

    const record = await settled(id);
    expect(record).toMatchObject({ status: 'completed', transfer_status: 'completed', tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    // The broker's record completes on the callback; the issuer's request right after it returns, and the workflow's
    // view once it has taken in that step's result.
    const issued = await eventually(async () => {
      const request = (await issuerRequest(record.issuer_request_id)).body;
      expect(request).toMatchObject({ type: 'mint', status: 'completed', state: 'completed', qty: '2.5', txHash: record.tx_hash, clientId: stack.clientId });
      expect(request.workflow).toMatchObject({ kind: 'mint', state: 'completed', step: 'done' });
      return request;
    });
    const expected = tokensForShares('2.5', issued.sharesMultiplier);
    expect(issued.tokenAmount).toBe(expected.toString());
    expect((await tokenBalance('AAPLon')) - balanceBefore).toBe(expected);
    expect(Number((await positions()).AAPL)).toBeCloseTo(Number(before.AAPL) - 2.5, 9);

    // One mint on chain, one signed transaction, one journal row; the same Idempotency-Key answers the first result.
    expect(await mintLogs(id)).toHaveLength(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM chain_transactions WHERE key LIKE $1`, [`${partnerMintWorkflowId(record.issuer_request_id)}:%`])).toBe(1);
    expect(await countRows(`SELECT count(*)::int AS n FROM broker.journal WHERE tokenization_request_id = $1`, [id])).toBe(1);
    const replay = await mint('2.5', {}, 'mint-happy');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.tokenization_request_id).toBe(id);
    await recordProductHistory('partner-mint-completed', stack.temporal.client.workflow.getHandle(partnerMintWorkflowId(record.issuer_request_id)));
  }, 120_000);

  test('a resubmitted issuance answers the first result, a repeated confirm changes nothing, a contradicting one is 409', async () => {
    const submitted = await mint('1');
    const record = await settled(submitted.body.tokenization_request_id);
    expect(record.status).toBe('completed');
    const issuance = JSON.parse((await stack.database.db.query<{ submission: string }>(`SELECT submission FROM broker.tokenization_requests WHERE tokenization_request_id = $1`, [record.tokenization_request_id])).rows[0]!.submission);
    const partner = (path: string, body: object) => stack.api.http.post(path).set('x-api-key', stack.partnerKey).send(body);

    const again = await partner('/v1/tokenization/inkind/issuance', issuance);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual({ issuer_request_id: record.issuer_request_id, status: 'created' });
    const altered = await partner('/v1/tokenization/inkind/issuance', { ...issuance, qty: '2' });
    expect([altered.status, altered.body.code]).toEqual([409, 'REQUEST_CONFLICT']);

    const confirm = { tokenization_request_id: record.tokenization_request_id, issuer_request_id: record.issuer_request_id, status: 'completed' };
    const repeated = await partner('/v1/tokenization/inkind/issuance/confirm', confirm);
    expect(repeated.status).toBe(200);
    const contradicting = await partner('/v1/tokenization/inkind/issuance/confirm', { ...confirm, status: 'rejected' });
    expect([contradicting.status, contradicting.body.code]).toEqual([409, 'REQUEST_CONFLICT']);
    expect(await mintLogs(record.tokenization_request_id)).toHaveLength(1);
  }, 120_000);

  test('is rejected for a wallet not enabled, with the reason, and nothing moves', async () => {
    const before = await positions();
    const other = stack.chain.walletOf(4).account.address;
    const submitted = await mint('1', { wallet_address: other });
    const record = await settled(submitted.body.tokenization_request_id);
    expect(record.status).toBe('rejected');
    expect(record.reason).toMatch(/^WALLET_NOT_ENABLED: /);
    expect(await positions()).toEqual(before);
  }, 60_000);

  test("is rejected, nothing minted, when the broker cannot journal the participant's shares", async () => {
    const balance = await tokenBalance('AAPLon');
    // More shares than the participant holds, under limits raised so that the issuer takes it whatever the session.
    await setMintLimits('1000000000');
    try {
      const submitted = await mint('5000');
      const record = await settled(submitted.body.tokenization_request_id);
      expect(record).toMatchObject({ status: 'rejected', transfer_status: 'rejected' });
      await eventually(async () => expect((await issuerRequest(record.issuer_request_id)).body).toMatchObject({ state: 'rejected', confirmStatus: 'rejected' }));
      await recordProductHistory('partner-mint-rejected', stack.temporal.client.workflow.getHandle(partnerMintWorkflowId(record.issuer_request_id)));
    } finally {
      await restoreMintLimits();
    }
    expect(await tokenBalance('AAPLon')).toBe(balance);
  }, 60_000);

  test("is refused over the session's mint limit for the underlying, nothing moved", async () => {
    const before = await positions();
    await setMintLimits('100');
    try {
      const submitted = await mint('1');
      const record = await settled(submitted.body.tokenization_request_id);
      expect(record.status).toBe('rejected');
      expect(record.reason).toMatch(/^PARTNER_LIMIT_REACHED: .*session's mint limit of 100 USD/);
    } finally {
      await restoreMintLimits();
    }
    expect(await positions()).toEqual(before);
  }, 60_000);

  test('waits while the market is paused and completes once it resumes', async () => {
    expect((await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'partner test' })).status).toBe(200);
    try {
      const submitted = await mint('1');
      const id = submitted.body.tokenization_request_id as string;
      const issuerRequestId = await eventually(async () => {
        const record = (await brokerRecord(id)).body;
        expect(record.issuer_request_id).toEqual(expect.any(String));
        const issued = (await issuerRequest(record.issuer_request_id)).body;
        expect(issued.workflow).toMatchObject({ state: 'confirmed', step: 'paused' });
        return record.issuer_request_id as string;
      }, 30_000);
      expect((await brokerRecord(id)).body.status).toBe('pending');
      expect(await mintLogs(id)).toHaveLength(0);
      expect((await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({})).status).toBe(200);
      expect((await settled(id)).status).toBe('completed');
      await eventually(async () => expect((await issuerRequest(issuerRequestId)).body.state).toBe('completed'));
    } finally {
      await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
    }
  }, 90_000);

  test('a mint the contract refuses is stored needs_review, holding its limit: rejected by an operator it releases it, resumed it mints', async () => {
    const issuerContract = stack.chain.deployment.issuer;
    const setBrokerRole = async (functionName: 'grantRole' | 'revokeRole') => {
      const hash = await stack.chain.walletOf(0).writeContract({ address: issuerContract, abi: issuerAbi, functionName, args: [ROLES.brokerSigner, stack.brokerSigner.address] });
      await stack.chain.client.waitForTransactionReceipt({ hash });
    };
    const mintUsage = async () =>
      Number((await stack.database.db.query<{ usd: string }>(`SELECT coalesce(sum(notional_usd), 0)::text AS usd FROM partner_requests WHERE kind = 'mint' AND state <> 'rejected'`)).rows[0]!.usd);
    expect((await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'hold the mints' })).status).toBe(200);
    let roleRevoked = false;
    try {
      // Two mints, signed while the broker holds its role, held by the pause once confirmed.
      const ids = [(await mint('1')).body.tokenization_request_id as string, (await mint('1.5')).body.tokenization_request_id as string];
      const [givenUp, retried] = await Promise.all(
        ids.map((id) =>
          eventually(async () => {
            const record = (await brokerRecord(id)).body;
            expect((await issuerRequest(record.issuer_request_id)).body.workflow).toMatchObject({ state: 'confirmed', step: 'paused' });
            return record.issuer_request_id as string;
          }, 30_000),
        ),
      );
      await setBrokerRole('revokeRole');
      roleRevoked = true;
      expect((await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({})).status).toBe(200);
      for (const id of [givenUp!, retried!]) {
        await eventually(async () => {
          const held = (await issuerRequest(id)).body;
          expect(held).toMatchObject({ state: 'needs_review', status: 'pending', txHash: null, reason: expect.stringContaining('SignerNotBroker') });
          expect(held.workflow).toMatchObject({ step: 'needs_review' });
        }, 30_000);
      }
      const listed = await stack.api.http.get('/v1/tokenization/requests?status=needs_review&type=mint').set('x-api-key', admin());
      expect(listed.body.requests.map((request: { issuerRequestId: string }) => request.issuerRequestId)).toEqual(expect.arrayContaining([givenUp, retried]));

      // Given up: rejected, its limit released, its workflow finished; a second reject is a conflict.
      const usage = await mintUsage();
      const notional = Number((await issuerRequest(givenUp!)).body.notionalUsd);
      const rejected = await stack.api.http.post(`/v1/tokenization/requests/${givenUp}/reject`).set('x-api-key', admin()).send({ reason: 'the broker re-signs it' });
      expect(rejected.status).toBe(200);
      expect(rejected.body).toMatchObject({ state: 'rejected', status: 'rejected', reason: 'rejected by an operator: the broker re-signs it' });
      expect(await mintUsage()).toBeCloseTo(usage - notional, 2);
      const handle = stack.temporal.client.workflow.getHandle(partnerMintWorkflowId(givenUp!));
      expect(await handle.result()).toMatchObject({ state: 'rejected', step: 'done' });
      const again = await stack.api.http.post(`/v1/tokenization/requests/${givenUp}/reject`).set('x-api-key', admin()).send({ reason: 'twice' });
      expect([again.status, again.body.code]).toEqual([409, 'REQUEST_CONFLICT']);
      expect(await mintLogs(ids[0]!)).toHaveLength(0);
      await recordProductHistory('partner-mint-review-rejected', handle);

      // Fixed (the role granted again) and resumed: minted once, called back, completed.
      await setBrokerRole('grantRole');
      roleRevoked = false;
      expect((await stack.api.http.post(`/v1/tokenization/requests/${retried}/resume`).set('x-api-key', admin())).status).toBe(200);
      expect((await settled(ids[1]!)).status).toBe('completed');
      await eventually(async () => expect((await issuerRequest(retried!)).body).toMatchObject({ state: 'completed', reason: null }), 30_000);
      expect(await mintLogs(ids[1]!)).toHaveLength(1);
      await recordProductHistory('partner-mint-review-resumed', stack.temporal.client.workflow.getHandle(partnerMintWorkflowId(retried!)));
    } finally {
      if (roleRevoked) await setBrokerRole('grantRole');
      await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
    }
  }, 120_000);

  test('survives the broker down and the worker restarted between the mint and the callback: one mint, one callback', async () => {
    await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'hold the mint' });
    let resumed = false;
    try {
      const submitted = await mint('1.5');
      const id = submitted.body.tokenization_request_id as string;
      const issuerRequestId = await eventually(async () => {
        const record = (await brokerRecord(id)).body;
        const issued = (await issuerRequest(record.issuer_request_id)).body;
        expect(issued.workflow).toMatchObject({ step: 'paused' });
        return record.issuer_request_id as string;
      }, 30_000);
      await stack.broker.stop();
      await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
      resumed = true;
      // Minted on chain; the callback fails while the broker is down.
      await eventually(async () => expect((await issuerRequest(issuerRequestId)).body).toMatchObject({ state: 'minted', workflow: { step: 'calling_back' } }), 30_000);
      await stack.temporal.stopWorker();
      await stack.startWorker();
      await stack.restartBroker();
      expect((await settled(id)).status).toBe('completed');
      await eventually(async () => expect((await issuerRequest(issuerRequestId)).body.state).toBe('completed'), 30_000);
      expect(await mintLogs(id)).toHaveLength(1);
      expect(await countRows(`SELECT count(*)::int AS n FROM broker.journal WHERE tokenization_request_id = $1`, [id])).toBe(1);
    } finally {
      if (!resumed) await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
    }
  }, 120_000);
});

describe('the partner API', () => {
  const issuance = (overrides: Record<string, unknown> = {}) => ({
    tokenization_request_id: `direct-${Math.random().toString(16).slice(2)}`,
    qty: '1',
    underlying_symbol: 'AAPL',
    token_symbol: 'AAPLon',
    network: 'ethereum',
    client_id: stack.clientId,
    wallet_address: stack.wallet,
    created: Math.floor(Date.now() / 1000),
    nonce: '42',
    broker_signature: `0x${'11'.repeat(65)}`,
    ...overrides,
  });

  /** `issuance(overrides)` signed as the broker signs (or by `signer`), then `after` applied to the signed body. */
  async function signedIssuance(overrides: Record<string, unknown> = {}, options: { signer?: LocalAccount; after?: Record<string, unknown> } = {}) {
    const body = issuance(overrides) as ReturnType<typeof issuance> & Record<string, string | number>;
    const signature = await signMintRequest(
      options.signer ?? stack.brokerSigner,
      {
        tokenizationRequestId: String(body.tokenization_request_id),
        underlyingSymbol: String(body.underlying_symbol),
        tokenSymbol: String(body.token_symbol),
        qty: BigInt(Math.round(Number(body.qty) * 1e9)),
        wallet: body.wallet_address as `0x${string}`,
        network: String(body.network),
        clientAccountId: String(body.client_id),
        created: BigInt(body.created),
        nonce: BigInt(body.nonce),
      },
      issuerDomain(1, stack.chain.deployment.issuer),
    );
    return { ...body, broker_signature: signature, ...options.after };
  }

  /** A good signed issuance (a nonce of its own) whose signature `change` turns into another form of the same one. */
  async function malleated(change: (signature: string) => string) {
    const body = await signedIssuance({ nonce: freshNonce() });
    return { ...body, broker_signature: change(body.broker_signature) };
  }

  /** A nonce no other issuance of this run signed. */
  const freshNonce = () => BigInt(`0x${randomBytes(16).toString('hex')}`).toString();

  /** The malleable twin of a signature (s → n − s, v flipped): viem recovers the same signer, the contract refuses it. */
  const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const withHighS = (signature: string) =>
    `${signature.slice(0, 66)}${(SECP256K1_ORDER - BigInt(`0x${signature.slice(66, 130)}`)).toString(16).padStart(64, '0')}${signature.endsWith('1b') ? '1c' : '1b'}`;
  /** The signature with `v` as a recovery id (0 or 1): viem recovers the same signer, the contract refuses it. */
  const withRecoveryIdV = (signature: string) => `${signature.slice(0, 130)}${signature.endsWith('1b') ? '00' : '01'}`;

  /** USD of the mints counted against the session limits (every state but rejected). */
  const mintUsage = async () =>
    (await stack.database.db.query<{ usd: string }>(`SELECT coalesce(sum(notional_usd), 0)::text AS usd FROM partner_requests WHERE kind = 'mint' AND state <> 'rejected'`)).rows[0]!.usd;

  test('refuses a forged, foreign or altered broker signature and a stale or future `created` before any limit is held; takes a good one', async () => {
    const before = { rows: await countRows('SELECT count(*)::int AS n FROM partner_requests'), usage: await mintUsage() };
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, object, number, string]> = [
      ['65 bytes that sign nothing', issuance(), 400, 'INVALID_BROKER_SIGNATURE'],
      ['a signature by a key without the broker role', await signedIssuance({}, { signer: privateKeyToAccount(generatePrivateKey()) }), 400, 'INVALID_BROKER_SIGNATURE'],
      ['a signed request altered after signing', await signedIssuance({ qty: '1' }, { after: { qty: '2' } }), 400, 'INVALID_BROKER_SIGNATURE'],
      ['another client than the one signed for', await signedIssuance({ client_id: 'acct_other' }, { after: { client_id: stack.clientId } }), 400, 'INVALID_BROKER_SIGNATURE'],
      ['a high-s signature (the malleable twin of a good one)', await malleated(withHighS), 400, 'INVALID_BROKER_SIGNATURE'],
      ['a good signature with v = 0 or 1', await malleated(withRecoveryIdV), 400, 'INVALID_BROKER_SIGNATURE'],
      ['created 16 minutes ago', await signedIssuance({ created: now - 16 * 60 }), 400, 'INVALID_CREATED'],
      ['created 2 minutes ahead', await signedIssuance({ created: now + 120 }), 400, 'INVALID_CREATED'],
    ];
    for (const [name, body, status, code] of cases) {
      const response = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(body);
      expect([name, response.status, response.body.code]).toEqual([name, status, code]);
    }
    expect(await countRows('SELECT count(*)::int AS n FROM partner_requests')).toBe(before.rows);
    expect(await mintUsage()).toBe(before.usage);

    // The broker's own signature of the request as sent is taken; rejecting its confirm releases what it holds.
    const good = await signedIssuance();
    const accepted = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(good);
    expect(accepted.status).toBe(201);
    expect(Number(await mintUsage())).toBeGreaterThan(Number(before.usage));
    const confirm = { tokenization_request_id: good.tokenization_request_id, issuer_request_id: accepted.body.issuer_request_id, status: 'rejected', reason: 'test: not journalled' };
    expect((await stack.api.http.post('/v1/tokenization/inkind/issuance/confirm').set('x-api-key', stack.partnerKey).send(confirm)).status).toBe(200);
    await eventually(async () => expect((await issuerRequest(accepted.body.issuer_request_id)).body.state).toBe('rejected'));
    expect(await mintUsage()).toBe(before.usage);
  });

  test("refuses a nonce another live issuance of the signer holds, also when issuances race with it; a rejected one frees it", async () => {
    const post = (body: object) => stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(body);
    const reject = async (body: { tokenization_request_id: string }, issuerRequestId: string) => {
      const confirm = { tokenization_request_id: body.tokenization_request_id, issuer_request_id: issuerRequestId, status: 'rejected', reason: 'test: nonce drill' };
      expect((await stack.api.http.post('/v1/tokenization/inkind/issuance/confirm').set('x-api-key', stack.partnerKey).send(confirm)).status).toBe(200);
      await eventually(async () => expect((await issuerRequest(issuerRequestId)).body.state).toBe('rejected'));
    };
    const nonce = freshNonce();
    const before = await countRows('SELECT count(*)::int AS n FROM partner_requests');
    // Other underlyings too: each is measured under its own lock, so only the store can tell them apart.
    const bodies = await Promise.all(
      ['AAPL', 'AAPL', 'TSLA', 'TSLA', 'NVDA', 'MSFT'].map((underlying) => signedIssuance({ nonce, underlying_symbol: underlying, token_symbol: `${underlying}on` })),
    );
    const answers = await Promise.all(bodies.map(post));
    const taken = answers.filter((answer) => answer.status === 201);
    expect(taken).toHaveLength(1);
    for (const answer of answers.filter((answer) => answer.status !== 201)) {
      expect([answer.status, answer.body.code]).toEqual([400, 'BROKER_NONCE_USED']);
      expect(answer.body.message).toContain(`nonce ${nonce} of broker signer ${stack.brokerSigner.address}`);
    }
    expect(await countRows('SELECT count(*)::int AS n FROM partner_requests')).toBe(before + 1);

    // The one taken still answers its resubmission; another request with the nonce is refused while it lives.
    const first = bodies[answers.indexOf(taken[0]!)]!;
    expect((await post(first)).status).toBe(200);
    expect((await post(await signedIssuance({ nonce }))).body.code).toBe('BROKER_NONCE_USED');

    // Rejected, it minted nothing: the contract would take the nonce again, and so does the issuance.
    await reject(first, taken[0]!.body.issuer_request_id);
    const again = await signedIssuance({ nonce });
    const retaken = await post(again);
    expect(retaken.status).toBe(201);
    await reject(again, retaken.body.issuer_request_id);
  });

  test('refuses a nonce a mint already used on chain, also where no stored request holds it (one stored before its signer was recorded)', async () => {
    const submitted = await mint('1');
    expect(submitted.status).toBe(201);
    const id = submitted.body.tokenization_request_id as string;
    expect((await settled(id)).status).toBe('completed');
    const { rows } = await stack.database.db.query<{ nonce: string }>(`SELECT mint_request ->> 'nonce' AS nonce FROM partner_requests WHERE tokenization_request_id = $1`, [id]);
    // As a request stored before migration 014: no signer recorded, so the store's index does not hold its nonce.
    await stack.database.db.query(`UPDATE partner_requests SET broker_signer = NULL WHERE tokenization_request_id = $1`, [id]);
    const before = await countRows('SELECT count(*)::int AS n FROM partner_requests');
    const reused = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(await signedIssuance({ nonce: rows[0]!.nonce }));
    expect([reused.status, reused.body.code]).toEqual([400, 'BROKER_NONCE_USED']);
    expect(reused.body.message).toContain(`nonce ${rows[0]!.nonce} of broker signer ${stack.brokerSigner.address} was already used by a mint on ethereum`);
    expect(await countRows('SELECT count(*)::int AS n FROM partner_requests')).toBe(before);
  });

  test('answers 503 CHAIN_UNAVAILABLE, writing nothing, while the chain that says who may sign cannot be read', async () => {
    const services = stack.api.app.services;
    const working = services.brokerSigners;
    services.brokerSigners = onChainBrokerSigners({ 'ethereum-1': publicClientFor(evmNetwork('ethereum-1', 'http://127.0.0.1:9')) });
    try {
      const before = await countRows('SELECT count(*)::int AS n FROM partner_requests');
      const response = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(await signedIssuance());
      expect([response.status, response.body.code]).toEqual([503, 'CHAIN_UNAVAILABLE']);
      expect(response.body.message).toMatch(/cannot be read/);
      expect(await countRows('SELECT count(*)::int AS n FROM partner_requests')).toBe(before);
    } finally {
      services.brokerSigners = working;
    }
  });

  test('refuses every bad request in the documented shape and writes nothing', async () => {
    const before = await countRows('SELECT count(*)::int AS n FROM partner_requests');
    const cases: Array<[object, number, string]> = [
      [issuance({ qty: '1.0000000001' }), 400, 'INVALID_QTY'],
      [issuance({ qty: '0' }), 400, 'INVALID_QTY'],
      [issuance({ qty: 3 }), 400, 'INVALID_QTY'],
      [issuance({ network: 'solana' }), 400, 'INVALID_NETWORK'],
      [issuance({ underlying_symbol: 'aapl' }), 400, 'INVALID_SYMBOL'],
      [issuance({ token_symbol: 'NVDAon' }), 400, 'INVALID_TOKEN_SYMBOL'],
      [issuance({ wallet_address: '0x1234' }), 400, 'INVALID_WALLET_ADDRESS'],
      [issuance({ broker_signature: '0xabcd' }), 400, 'INVALID_BROKER_SIGNATURE'],
      [issuance({ extra: true }), 400, 'INVALID_REQUEST_BODY'],
      [issuance({ nonce: undefined }), 400, 'INVALID_REQUEST_BODY'],
      [issuance({ underlying_symbol: 'SPY', token_symbol: 'SPYon' }), 400, 'TOKEN_NOT_ON_NETWORK'],
      [issuance({ network: 'binance' }), 503, 'CHAIN_UNAVAILABLE'],
      [issuance({ client_id: 'acct_nobody' }), 404, 'CLIENT_NOT_FOUND'],
      [issuance({ wallet_address: stack.chain.walletOf(5).account.address }), 403, 'WALLET_NOT_ENABLED'],
    ];
    for (const [body, status, code] of cases) {
      const response = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(body);
      expect([body, response.status, response.body.code]).toEqual([body, status, code]);
      expect(response.body.documentation).toContain(code.toLowerCase());
    }
    const wrongKey = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', admin()).send(issuance());
    expect([wrongKey.status, wrongKey.body.code]).toEqual([403, 'PARTNER_SCOPE_REQUIRED']);
    const partnerOnAdmin = await stack.api.http.get('/v1/tokenization/requests').set('x-api-key', stack.partnerKey);
    expect(partnerOnAdmin.status).toBe(403);
    expect(await countRows('SELECT count(*)::int AS n FROM partner_requests')).toBe(before);
  });

  test('refuses a client not linked to a partner account and an ineligible one; an operator links accounts', async () => {
    const adminAccount = (await stack.database.db.query<{ account_id: string }>(`SELECT account_id FROM api_keys WHERE scope = 'admin' AND account_id IS NOT NULL LIMIT 1`)).rows[0]!.account_id;
    expect((await stack.api.http.put(`/v1/tokenization/clients/${adminAccount}`).set('x-api-key', admin()).send({ email: 'other@issuer.test' })).status).toBe(200);
    const notLinked = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(issuance({ client_id: adminAccount }));
    expect([notLinked.status, notLinked.body.code]).toEqual([403, 'ACCOUNT_NOT_LINKED']);
    const taken = await stack.api.http.put(`/v1/tokenization/clients/${adminAccount}`).set('x-api-key', admin()).send({ email: 'other@issuer.test', partnerAccount: 'SBX-000001' });
    expect([taken.status, taken.body.code]).toEqual([409, 'ACCOUNT_ALREADY_LINKED']);
    const linked = await stack.api.http.put(`/v1/tokenization/clients/${adminAccount}`).set('x-api-key', admin()).send({ email: 'other@issuer.test', partnerAccount: 'SBX-000777', eligible: false });
    expect(linked.body).toMatchObject({ clientId: adminAccount, partnerAccount: 'SBX-000777', eligible: false });
    const ineligible = await stack.api.http.post('/v1/tokenization/inkind/issuance').set('x-api-key', stack.partnerKey).send(issuance({ client_id: adminAccount }));
    expect([ineligible.status, ineligible.body.code]).toEqual([403, 'CLIENT_NOT_ELIGIBLE']);
    const unlinked = await stack.api.http.delete(`/v1/tokenization/clients/${adminAccount}/link`).set('x-api-key', admin());
    expect(unlinked.body).toMatchObject({ clientId: adminAccount, partnerAccount: null });
  });

  test('connect: unknown email 404, another account 409; tokenized assets list the offered tokens and their networks', async () => {
    const connect = (body: object) => stack.api.http.post('/v1/tokenization/accounts/connect').set('x-api-key', stack.partnerKey).send(body);
    expect((await connect({ email: 'nobody@example.test', account: 'SBX-9' })).body.code).toBe('CLIENT_NOT_FOUND');
    const again = await connect({ email: 'ap@sandbox.test', account: 'SBX-000001' });
    expect(again.body).toEqual({ client_id: stack.clientId });
    const other = await connect({ email: 'ap@sandbox.test', account: 'SBX-000002' });
    expect([other.status, other.body.code]).toEqual([409, 'ACCOUNT_ALREADY_LINKED']);
    const assets = await stack.api.http.get('/v1/tokenization/tokenized-assets').set('x-api-key', stack.partnerKey);
    expect(assets.body.tokens).toEqual(
      ['AAPL', 'AMZN', 'MSFT', 'NVDA', 'TSLA'].map((underlying) => ({ underlying, token: `${underlying}on`, networks: ['ethereum'] })),
    );
  });
});

describe('a redemption', () => {
  /** Burns `amount` of AAPLon from anvil account `index` through the issuer contract; answers its issuer request id. */
  async function redeemFrom(index: number, amount: bigint): Promise<{ issuerRequestId: string; txHash: Hex }> {
    const wallet = stack.chain.walletOf(index);
    const token = stack.tokens.AAPLon!;
    await stack.chain.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: token, abi: stockTokenAbi, functionName: 'approve', args: [stack.chain.deployment.issuer, maxUint256] }),
    });
    const burn = await stack.chain.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: stack.chain.deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [token, amount] }),
    });
    const [redeemed] = parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: burn.logs });
    return { issuerRequestId: `redemption-1-${burn.transactionHash.toLowerCase()}-${redeemed!.logIndex}`, txHash: burn.transactionHash };
  }

  test('from a wallet no client is linked to waits for an operator, then delivers to the client assigned', async () => {
    // Anvil account 6 is registered (for attestations) to the admin key's account, which is not in the partner flow.
    const adminAccount = (await stack.database.db.query<{ account_id: string }>(`SELECT account_id FROM api_keys WHERE scope = 'admin' AND account_id IS NOT NULL LIMIT 1`)).rows[0]!.account_id;
    const stray = stack.chain.walletOf(6).account.address;
    expect([200, 202]).toContain((await stack.api.http.post(`/v1/accounts/${adminAccount}/wallets`).set('x-api-key', admin()).send({ chainId: 'ethereum-1', address: stray })).status);
    await eventually(async () => expect((await stack.api.http.get(`/v1/accounts/${adminAccount}/wallets`).set('x-api-key', admin())).body.wallets).toContainEqual(expect.objectContaining({ address: stray.toLowerCase(), state: 'registered' })), 30_000);
    expect((await settled((await mint('1')).body.tokenization_request_id)).status).toBe('completed');
    const amount = 10n ** 17n;
    await stack.chain.client.waitForTransactionReceipt({
      hash: await stack.chain.walletOf(WALLET_INDEX).writeContract({ address: stack.tokens.AAPLon!, abi: stockTokenAbi, functionName: 'transfer', args: [stray, amount] }),
    });
    const before = await positions();
    const { issuerRequestId } = await redeemFrom(6, amount);

    await eventually(async () => {
      const held = (await issuerRequest(issuerRequestId)).body;
      expect(held).toMatchObject({ state: 'needs_review', clientId: null, reason: expect.stringContaining('no client is linked') });
      expect(held.workflow).toMatchObject({ step: 'needs_review' });
    }, 30_000);
    const listed = await stack.api.http.get('/v1/tokenization/requests?status=needs_review&type=redeem').set('x-api-key', admin());
    expect(listed.body.requests.map((request: { issuerRequestId: string }) => request.issuerRequestId)).toContain(issuerRequestId);
    expect(await positions()).toEqual(before);

    const notLinked = await stack.api.http.post(`/v1/tokenization/requests/${issuerRequestId}/resume`).set('x-api-key', admin()).send({ clientId: adminAccount });
    expect([notLinked.status, notLinked.body.code]).toEqual([403, 'ACCOUNT_NOT_LINKED']);
    const resumed = await stack.api.http.post(`/v1/tokenization/requests/${issuerRequestId}/resume`).set('x-api-key', admin()).send({ clientId: stack.clientId });
    expect(resumed.status).toBe(200);
    const done = await eventually(async () => {
      const request = (await issuerRequest(issuerRequestId)).body;
      expect(request).toMatchObject({ state: 'completed', clientId: stack.clientId });
      return request;
    }, 60_000);
    expect(Number((await positions()).AAPL)).toBeCloseTo(Number(before.AAPL) + Number(done.qty), 9);
    const again = await stack.api.http.post(`/v1/tokenization/requests/${issuerRequestId}/resume`).set('x-api-key', admin()).send({ clientId: stack.clientId });
    expect([again.status, again.body.code]).toEqual([409, 'REQUEST_CONFLICT']);
    // A finished request has no workflow left to tell: 409, not a failed signal.
    const finished = await stack.api.http.post(`/v1/tokenization/requests/${issuerRequestId}/resume`).set('x-api-key', admin());
    expect([finished.status, finished.body.code, finished.body.message]).toEqual([409, 'REQUEST_CONFLICT', `Request ${issuerRequestId} is completed; there is nothing to resume`]);
  }, 180_000);

  test('burns the tokens and ends with the shares back in the participant account and a completed redeem record', async () => {
    const submitted = await mint('3');
    expect((await settled(submitted.body.tokenization_request_id)).status).toBe('completed');
    const before = await positions();
    const amount = (await tokenBalance('AAPLon')) / 2n;
    const burn = await redeemFrom(WALLET_INDEX, amount);
    const { issuerRequestId } = burn;

    const issued = await eventually(async () => {
      const request = (await issuerRequest(issuerRequestId)).body;
      expect(request).toMatchObject({ type: 'redeem', state: 'completed' });
      return request;
    }, 60_000);
    const { shares, dust } = sharesForTokens(amount, issued.sharesMultiplier);
    expect(issued).toMatchObject({ qty: shares, shareDust: dust, tokenAmount: amount.toString(), clientId: stack.clientId, txHash: burn.txHash });
    const records = (await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests?type=redeem`)).body as { issuer_request_id: string; status: string; qty: string }[];
    expect(records.filter((record) => record.issuer_request_id === issuerRequestId)).toEqual([expect.objectContaining({ status: 'completed', qty: shares })]);
    expect(Number((await positions()).AAPL)).toBeCloseTo(Number(before.AAPL) + Number(shares), 9);
  }, 120_000);
});

describe('operator wallet controls', () => {
  test('enabling registers the wallet on chain (202, then 200 once registered); disabling takes it out of the flow (202)', async () => {
    const address = stack.chain.walletOf(7).account.address.toLowerCase();
    const wallets = `/v1/tokenization/clients/${stack.clientId}/wallets`;
    const clientWallets = async () => (await stack.api.http.get(`/v1/tokenization/clients/${stack.clientId}`).set('x-api-key', admin())).body.wallets;

    const enabled = await stack.api.http.post(wallets).set('x-api-key', admin()).send({ chainId: 'ethereum-1', address });
    expect([enabled.status, enabled.body.state, enabled.body.partnerEnabled]).toEqual([202, 'registering', true]);
    await eventually(async () => expect(await clientWallets()).toContainEqual(expect.objectContaining({ address, registration: 'registered' })), 30_000);
    const again = await stack.api.http.post(wallets).set('x-api-key', admin()).send({ chainId: 'ethereum-1', address });
    expect([again.status, again.body.state]).toEqual([200, 'registered']);

    const disabled = await stack.api.http.delete(`${wallets}/ethereum-1/${address}`).set('x-api-key', admin());
    expect([disabled.status, disabled.body.state, disabled.body.partnerEnabled]).toEqual([202, 'unregistering', false]);
    expect((await clientWallets()).map((wallet: { address: string }) => wallet.address)).not.toContain(address);
    // Asking again is harmless: 202 while the registry is written, then 404 once the wallet is gone from it.
    await eventually(async () => {
      const gone = await stack.api.http.delete(`${wallets}/ethereum-1/${address}`).set('x-api-key', admin());
      expect([gone.status, gone.body.code]).toEqual([404, 'WALLET_NOT_FOUND']);
    }, 30_000);
  }, 90_000);
});
