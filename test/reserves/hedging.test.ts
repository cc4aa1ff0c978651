/**
 * Every token backed, end to end on a local anvil chain with the brokerage sandbox (its trading clock pinned into a
 * regular session): attestation mints and redeems are hedged at the broker once final and the reserves cover them;
 * a partner mint is covered throughout, and not counted twice once its tokens are in the supply read; tokens minted on chain outside the product show as a shortfall and minting of
 * that asset is refused until the shares are there; a hedge owed while the market is paused or the broker is down is
 * in flight, then filled and covered; 50 executions at once are netted into few orders, each placed once; a step that
 * dies between placing an order and recording it leaves one order at the broker, found by the retry.
 */
import { encodeFunctionData, maxUint256, parseUnits, type Hex } from 'viem';
import { stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../../contracts/abi';
import { ROLES } from '../../contracts/roles';
import { Decimal } from '../../domain/money';
import { quoteOf, signatureOf } from '../support/quotes';
import { hedgeWorkflowId, RESERVES_WORKFLOW_ID } from '../../temporal/workflow-ids';
import { eventually, recordProductHistory } from '../support/temporal';
import { basic, brokerGet, brokerPost, ISSUER_ID, startPartnerStack, type PartnerStack } from '../partner/support';
import request from 'supertest';

let stack: PartnerStack;
const db = () => stack.database.db;
const write = () => stack.api.keys.write;
const admin = () => stack.api.keys.admin;

async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  return (await db().query(sql, values)).rows as T[];
}

type AttestationBody = Record<string, string> & { attestationId: string; signature: string };

async function attest(symbol: string, side: 'buy' | 'sell', tokenAmount: string, fresh = true): Promise<request.Response> {
  if (fresh) await db().query('UPDATE latest_prices SET observed_at = $1', [Date.now()]);
  return stack.api.http.post('/v1/attestations').set('x-api-key', write()).send({ symbol, side, tokenAmount, duration: 'long' });
}

let nonce: number | undefined;
/** Sends a transaction from the enabled wallet (anvil account 3) without waiting; nonces counted here so many go at once. */
async function send(to: `0x${string}`, data: Hex): Promise<Hex> {
  const wallet = stack.chain.walletOf(3);
  nonce ??= await stack.chain.client.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' });
  return wallet.sendTransaction({ to, data, gas: 600_000n, nonce: nonce++ });
}

function execute(body: AttestationBody, side: 'buy' | 'sell'): Promise<Hex> {
  const { tokenManager, stablecoin } = stack.chain.deployment;
  return send(
    tokenManager,
    side === 'buy'
      ? encodeFunctionData({ abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quoteOf(body), signatureOf(body), stablecoin, parseUnits('100000', 6)] })
      : encodeFunctionData({ abi: tokenManagerAbi, functionName: 'redeemWithAttestation', args: [quoteOf(body), signatureOf(body), stablecoin, 0n] }),
  );
}

async function executed(hash: Hex): Promise<void> {
  const receipt = await stack.chain.client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
}

const reserves = async () => (await stack.api.http.get('/v1/reserves').set('x-api-key', stack.api.keys.read)).body;
const assetOf = async (underlying: string) => (await reserves()).assets.find((asset: { underlying: string }) => asset.underlying === underlying);
const hedges = async (underlying: string) => (await stack.api.http.get(`/v1/reserves/hedges?underlying=${underlying}&limit=500`).set('x-api-key', admin())).body;
const issuerPosition = async (symbol: string): Promise<string> => {
  const positions = await request(stack.broker.url).get(`/v1/trading/accounts/${stack.seeded.issuerAccount.accountId}/positions`).set('authorization', basic(stack.issuerCredential));
  return positions.body.find((position: { symbol: string }) => position.symbol === symbol)?.qty ?? '0';
};

/**
 * Waits until every trade of `underlying` is hedged (filled) and the reserves computed after the last fill (an earlier
 * computation may predate the executions: nothing owed, nothing in flight) cover it with nothing in flight.
 */
async function hedgedAndCovered(underlying: string, trades: number): Promise<void> {
  const lastFill = await eventually(async () => {
    const { trades: listed } = await hedges(underlying);
    expect(listed).toHaveLength(trades);
    for (const trade of listed) expect(trade).toMatchObject({ orderState: 'filled', fillPrice: expect.any(String), slippageBps: expect.any(String) });
    return Math.max(...listed.map((trade: { filledAt: number }) => Math.floor(trade.filledAt)));
  }, 60_000);
  // What is left in flight is the rounding carry only: less than the broker's unit, 1e-9 share, on each side.
  await eventually(async () => {
    const computed = await reserves();
    expect(computed.timestamp).toBeGreaterThanOrEqual(lastFill);
    const asset = computed.assets.find((entry: { underlying: string }) => entry.underlying === underlying);
    expect(asset.status).toBe('covered');
    expect(new Decimal(asset.inFlight.hedges).abs().toNumber()).toBeLessThan(2e-9);
  }, 30_000);
}

beforeAll(async () => {
  stack = await startPartnerStack();
  const { stablecoin, tokenManager } = stack.chain.deployment;
  const wallet = stack.chain.walletOf(3);
  await stack.chain.client.waitForTransactionReceipt({
    hash: await stack.chain.walletOf(0).writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('100000000', 6)] }),
  });
  await stack.chain.client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
  await stack.chain.client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stack.tokens.SPYon!, abi: stockTokenAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
  // Enough attestations per session for the netting case.
  await db().query(`UPDATE session_limits SET max_attestation_count = 1000, max_active_notional_value = 100000000 WHERE symbol IN ('SPYon', 'QQQon')`);
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

test('an attestation mint and redeem are hedged at the broker once final; the reserves cover them', async () => {
  const bought = await attest('SPYon', 'buy', '2');
  expect(bought.status).toBe(200);
  await executed(await execute(bought.body, 'buy'));
  await hedgedAndCovered('SPY', 1);
  const { trades } = await hedges('SPY');
  expect(trades[0]).toMatchObject({ side: 'buy', tokens: '2', attestationId: bought.body.attestationId });
  expect(new Decimal(await issuerPosition('SPY')).toFixed(9)).toBe(new Decimal(trades[0].shares).toDecimalPlaces(9, Decimal.ROUND_UP).toFixed(9));
  const spy = await assetOf('SPY');
  expect(spy).toMatchObject({ symbol: 'SPYon', tokens: { total: '2', byChain: { 'ethereum-1': '2' } } });
  expect(new Decimal(spy.coverage).gte(1)).toBe(true);

  const sold = await attest('SPYon', 'sell', '0.5');
  expect(sold.status).toBe(200);
  await executed(await execute(sold.body, 'sell'));
  await hedgedAndCovered('SPY', 2);
  await eventually(async () => expect((await assetOf('SPY')).tokens.total).toBe('1.5'), 30_000);
  // Both workflows are running: the histories so far, two batches filled and the reserves recomputed after each, replay
  // in test/workflows/replay.test.ts.
  await recordProductHistory('hedge-filled', stack.temporal.client.workflow.getHandle(hedgeWorkflowId('SPY')));
  await recordProductHistory('reserves-recomputed', stack.temporal.client.workflow.getHandle(RESERVES_WORKFLOW_ID));
}, 120_000);

test('50 executions at once are netted into few orders, each client_order_id placed once', async () => {
  const before = (await query<{ n: number }>(`SELECT count(*)::int AS n FROM hedge_orders WHERE underlying = 'SPY'`))[0]!.n;
  await db().query('UPDATE latest_prices SET observed_at = $1', [Date.now()]);
  const bodies = await Promise.all(Array.from({ length: 50 }, () => attest('SPYon', 'buy', '0.1', false)));
  for (const body of bodies) expect(body.status).toBe(200);
  const hashes: Hex[] = [];
  for (const body of bodies) hashes.push(await execute(body.body, 'buy'));
  await Promise.all(hashes.map(executed));
  await hedgedAndCovered('SPY', 52);
  const orders = (await query<{ n: number }>(`SELECT count(*)::int AS n FROM hedge_orders WHERE underlying = 'SPY'`))[0]!.n - before;
  expect(orders).toBeGreaterThanOrEqual(1);
  expect(orders).toBeLessThanOrEqual(10);
  // One broker order per client_order_id, whatever was retried.
  const placed = await query<{ client_order_id: string; n: number }>(`SELECT client_order_id, count(*)::int AS n FROM broker.orders GROUP BY 1 HAVING count(*) > 1`);
  expect(placed).toEqual([]);
}, 180_000);

test('a partner mint is covered throughout', async () => {
  const from = Date.now();
  const minted = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/mint`, { underlying_symbol: 'AAPL', qty: '5', issuer: ISSUER_ID, network: 'ethereum', wallet_address: stack.wallet });
  expect(minted.status).toBe(201);
  await eventually(async () => expect((await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${minted.body.tokenization_request_id}`)).body.status).toBe('completed'), 60_000);
  await eventually(async () => expect(await assetOf('AAPL')).toMatchObject({ status: 'covered', tokens: { total: expect.stringMatching(/^[1-9]/) } }), 30_000);
  const history = await stack.api.http.get(`/v1/reserves/history?underlying=AAPL&from=${from}`).set('x-api-key', stack.api.keys.read);
  expect(history.status).toBe(200);
  expect(history.body.snapshots.length).toBeGreaterThan(0);
  for (const snapshot of history.body.snapshots) expect(snapshot.status).toBe('covered');
}, 120_000);

test('a partner mint whose tokens are in the supply read is not also in flight, whatever its state says yet', async () => {
  // The moment between the watcher's final block passing the mint and the mint's own wait for finality writing
  // `minted`: a completed mint (its transaction final), set back to `confirmed`.
  // The broker calls a request completed from the issuer's callback; the issuer's own row says so a moment later.
  let mint: { issuer_request_id: string } | undefined;
  await eventually(async () => {
    [mint] = await query<{ issuer_request_id: string }>(
      `SELECT issuer_request_id FROM partner_requests WHERE kind = 'mint' AND underlying_symbol = 'AAPL' AND state = 'completed' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(mint).toBeDefined();
  }, 30_000);
  await db().query(`UPDATE partner_requests SET state = 'confirmed' WHERE issuer_request_id = $1`, [mint!.issuer_request_id]);
  try {
    const from = Date.now();
    await eventually(async () => {
      const computed = await reserves();
      expect(computed.timestamp).toBeGreaterThan(from);
      expect(computed.assets.find((asset: { underlying: string }) => asset.underlying === 'AAPL')).toMatchObject({ status: 'covered', inFlight: { partnerMints: '0' } });
    }, 30_000);
  } finally {
    await db().query(`UPDATE partner_requests SET state = 'completed' WHERE issuer_request_id = $1`, [mint!.issuer_request_id]);
  }
}, 60_000);

test('tokens minted outside the product are a shortfall: minting of the asset is refused until the shares are there', async () => {
  const outsider = stack.chain.walletOf(5);
  const token = stack.tokens.QQQon!;
  const deployer = stack.chain.walletOf(0);
  await stack.chain.client.waitForTransactionReceipt({ hash: await deployer.writeContract({ address: token, abi: stockTokenAbi, functionName: 'grantRole', args: [ROLES.minter, outsider.account.address] }) });
  await stack.chain.client.waitForTransactionReceipt({ hash: await outsider.writeContract({ address: token, abi: stockTokenAbi, functionName: 'mint', args: [outsider.account.address, parseUnits('3', 18)] }) });
  const short = await eventually(async () => {
    const qqq = await assetOf('QQQ');
    expect(qqq).toMatchObject({ status: 'short', tokens: { total: '3' }, sharesHeld: '0' });
    return qqq;
  }, 60_000);
  await eventually(async () => {
    const refused = await attest('QQQon', 'buy', '1');
    expect([refused.status, refused.body.code]).toEqual([403, 'RESERVES_SHORT']);
  }, 30_000);
  expect((await hedges('QQQ')).pauses).toContainEqual(expect.objectContaining({ symbol: 'QQQon' }));
  expect((await attest('QQQon', 'sell', '1')).body.code).not.toBe('RESERVES_SHORT');

  // The operator buys the shares at the broker: covered again, minting resumes.
  const bought = await request(stack.broker.url)
    .post(`/v1/trading/accounts/${stack.seeded.issuerAccount.accountId}/orders`)
    .set('authorization', basic(stack.issuerCredential))
    .send({ symbol: 'QQQ', qty: new Decimal(short.sharesRequired).toDecimalPlaces(9, Decimal.ROUND_UP).toFixed(), side: 'buy', type: 'market', time_in_force: 'day', client_order_id: 'cover-qqq' });
  expect(bought.status).toBe(201);
  await eventually(async () => expect(await assetOf('QQQ')).toMatchObject({ status: 'covered' }), 30_000);
  await eventually(async () => expect((await attest('QQQon', 'buy', '1')).status).toBe(200), 30_000);
}, 180_000);

test('a hedge owed while the market is paused, then while the broker is down, is in flight, then filled and covered', async () => {
  const paused = await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'reserves test' });
  expect(paused.status).toBeLessThan(300);
  // Attested before the pause would refuse it: executed on chain while the market is paused for new attestations.
  await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
  const body = await attest('SPYon', 'buy', '1');
  expect(body.status).toBe(200);
  await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'reserves test' });
  await executed(await execute(body.body, 'buy'));
  const waiting = await eventually(async () => {
    const { orders } = await hedges('SPY');
    const pending = orders.find((order: { state: string }) => order.state === 'pending');
    expect(pending?.lastError).toContain('market is paused');
    return pending;
  }, 60_000);
  await eventually(async () => {
    const spy = await assetOf('SPY');
    expect(spy.status).toBe('covered');
    expect(new Decimal(spy.inFlight.hedges).minus(waiting.sharesOwed).abs().toNumber()).toBeLessThan(1e-9);
  }, 30_000);

  await stack.broker.stop();
  await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
  await eventually(async () => {
    const { orders } = await hedges('SPY');
    expect(orders.find((order: { batchId: string }) => order.batchId === waiting.batchId)?.lastError).toContain('unavailable');
  }, 60_000);
  await stack.restartBroker();
  await hedgedAndCovered('SPY', 53);
}, 180_000);

/**
 * The step dies between placing an order at the broker and recording it. Done by terminating, with
 * pg_terminate_backend, the PostgreSQL backend of the worker's step while it waits to record the placed order (a row
 * lock the test holds): the partner stack runs the worker in this process, and the step's connection dying at that
 * exact statement is what a crash there leaves behind. A worker run as a process of its own and killed with SIGKILL
 * would not hit the window: its UPDATE stays queued on the lock (PostgreSQL notices a vanished client only when it
 * next writes to it) and, once the lock is released, records the order after all.
 */
test('a step that dies between placing an order and recording it: the retry finds the first order, one at the broker', async () => {
  const before = (await hedges('SPY')).trades.length;
  const body = await attest('SPYon', 'buy', '1');
  expect(body.status).toBe(200);
  // The market paused: the batch opens and its order waits unplaced (hedgeHold), the row there to lock.
  await stack.api.http.post('/v1/status/market/pause').set('x-api-key', admin()).send({ reason: 'crash test' });
  await executed(await execute(body.body, 'buy'));
  const waiting = await eventually(async () => {
    const [order] = await query<{ batchId: string; clientOrderId: string; lastError: string | null }>(
      `SELECT batch_id AS "batchId", client_order_id AS "clientOrderId", last_error AS "lastError" FROM hedge_orders WHERE underlying = 'SPY' AND state = 'pending'`,
    );
    expect(order?.lastError).toContain('market is paused');
    return order!;
  }, 60_000);
  // No attempt runs while the lock is taken and the market still paused (it would wait on the lock to record the hold).
  await stack.temporal.stopWorker();
  await stack.api.http.post('/v1/status/market/resume').set('x-api-key', admin()).send({});
  const lock = await db().connect();
  try {
    await lock.query('BEGIN');
    await lock.query('SELECT 1 FROM hedge_orders WHERE batch_id = $1 FOR UPDATE', [waiting.batchId]);
    const lockPid = (await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await stack.startWorker();
    // Placed at the broker; the step waits on the lock to record it.
    const blocked = await eventually(async () => {
      const placed = await query(`SELECT order_id FROM broker.orders WHERE client_order_id = $1`, [waiting.clientOrderId]);
      expect(placed).toHaveLength(1);
      const waiters = await query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [lockPid]);
      expect(waiters.length).toBeGreaterThan(0);
      return waiters.map((waiter) => waiter.pid);
    }, 60_000);
    const terminated = await query<{ done: boolean }>('SELECT pg_terminate_backend(pid) AS done FROM unnest($1::int[]) AS pid', [blocked]);
    expect(terminated.every((row) => row.done)).toBe(true);
    const [unrecorded] = (await lock.query<{ broker_order_id: string | null }>('SELECT broker_order_id FROM hedge_orders WHERE batch_id = $1', [waiting.batchId])).rows;
    expect(unrecorded!.broker_order_id).toBeNull();
  } finally {
    await lock.query('ROLLBACK').catch(() => undefined);
    lock.release();
  }

  // The retry places again under the same client_order_id, is answered the first order and records it.
  await hedgedAndCovered('SPY', before + 1);
  const placed = await query<{ order_id: string; status: string }>(`SELECT order_id::text, status FROM broker.orders WHERE client_order_id = $1`, [waiting.clientOrderId]);
  expect(placed).toEqual([{ order_id: expect.any(String), status: 'filled' }]);
  const [recorded] = await query<{ state: string; broker_order_id: string }>('SELECT state, broker_order_id FROM hedge_orders WHERE batch_id = $1', [waiting.batchId]);
  expect(recorded).toEqual({ state: 'filled', broker_order_id: placed[0]!.order_id });
}, 180_000);
