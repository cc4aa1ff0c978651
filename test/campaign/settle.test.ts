/**
 * Settling (campaign/settle.ts) on the partner stack (API, worker with the chain watcher, hedging and reserves, the
 * brokerage sandbox, one anvil chain mining every half second): an attestation's execution just landed on chain is in
 * flight — the watcher is not final up to the block that holds it —, and settling returns only once the attestation is
 * executed, its hedge filled and a reserves computation taken after that sees nothing in flight; with no time to wait,
 * it returns at once naming what still moves.
 */
import { encodeFunctionData, maxUint256, parseUnits, type Hex } from 'viem';
import { DEFAULT_SETTLEMENT_GRACE_MS } from '../../attestations/lifecycle-workflows';
import { checkLiveness, stackChainHeads } from '../../campaign/liveness';
import { settle } from '../../campaign/settle';
import type { CampaignTarget } from '../../campaign/model';
import { stablecoinAbi, tokenManagerAbi } from '../../contracts/abi';
import { latestReserveSnapshot } from '../../db/queries/reserves';
import { Decimal } from '../../domain/money';
import { startPartnerStack, type PartnerStack } from '../partner/support';
import { quoteOf, signatureOf } from '../support/quotes';

let stack: PartnerStack;
let target: CampaignTarget;

beforeAll(async () => {
  // Reserves only when asked (an hour apart otherwise): the computation settling asks for is the one seen.
  stack = await startPartnerStack({ reservesIntervalMs: 3_600_000 });
  const { stablecoin, tokenManager } = stack.chain.deployment;
  const wallet = stack.chain.walletOf(3);
  await stack.chain.client.waitForTransactionReceipt({
    hash: await stack.chain.walletOf(0).writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('1000000', 6)] }),
  });
  await stack.chain.client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
  target = {
    stack: { api: stack.apiUrl, database: stack.database.url, chains: { [stack.chain.chain]: { rpcUrl: stack.chain.context.network.rpcUrl } } },
    apiUrls: [stack.apiUrl],
  };
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

test('an attestation executing on chain: settling names it in flight, then returns once it is executed, hedged and the reserves computed after', async () => {
  await stack.database.db.query('UPDATE latest_prices SET observed_at = $1', [Date.now()]);
  const created = await stack.api.http.post('/v1/attestations').set('x-api-key', stack.api.keys.write).send({ symbol: 'SPYon', side: 'buy', tokenAmount: '1.5', duration: 'long' });
  expect(created.status).toBe(200);
  const { tokenManager, stablecoin } = stack.chain.deployment;
  const hash: Hex = await stack.chain.walletOf(3).sendTransaction({
    to: tokenManager,
    data: encodeFunctionData({ abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quoteOf(created.body), signatureOf(created.body), stablecoin, parseUnits('100000', 6)] }),
    gas: 600_000n,
  });
  const receipt = await stack.chain.client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  const parameters = { db: stack.database.db, temporal: stack.temporal.client, target, pollMs: 100, settlementGraceMs: DEFAULT_SETTLEMENT_GRACE_MS };

  // No time to wait: the block holding the execution is not final for the watcher yet, and that is said.
  const hurried = await settle({ ...parameters, timeoutMs: 0 });
  expect(hurried).toMatchObject({ settled: false, reservesTakenAt: null });
  expect(hurried.inFlight).toContainEqual({
    what: 'a chain watcher not final up to the head settling began at',
    records: { chain: stack.chain.chain, finalBlock: expect.any(String), head: expect.any(String) },
  });
  expect(BigInt(hurried.inFlight.find((entry) => entry.records.chain === stack.chain.chain)!.records.head!)).toBeGreaterThanOrEqual(receipt.blockNumber);

  const settled = await settle({ ...parameters, timeoutMs: 120_000 });
  expect(settled).toMatchObject({ settled: true, inFlight: [], reservesTakenAt: expect.any(Number) });
  expect(settled.waitedFor.length).toBeGreaterThan(0);
  // Read once, as settled: nothing waited for here.
  const { rows } = await stack.database.db.query(`SELECT state, execution_tx_hash AS "txHash" FROM attestations WHERE attestation_id = $1`, [created.body.attestationId]);
  expect(rows).toEqual([{ state: 'executed', txHash: hash }]);
  const { rows: batches } = await stack.database.db.query(
    `SELECT b.state FROM hedge_obligations h JOIN hedge_batches b USING (batch_id) WHERE h.tx_hash = $1`,
    [hash],
  );
  expect(batches).toEqual([{ state: 'done' }]);
  const snapshot = (await latestReserveSnapshot(stack.database.db))!;
  expect(snapshot.takenAt).toBe(settled.reservesTakenAt);
  const spy = snapshot.assets.find((asset) => asset.symbol === 'SPYon')!;
  expect(new Decimal(spy.tokens.total).gte('1.5')).toBe(true);
  expect(new Decimal(spy.inFlight.hedges).abs().lt('1e-9')).toBe(true);
}, 300_000);

test('settled, every workflow of the stack is live and its watcher at the head; with no worker, the watcher is named behind its chain', async () => {
  const liveness = () =>
    checkLiveness({ client: stack.temporal.client, db: stack.database.db, heads: stackChainHeads(target.stack), headTimeoutMs: 5_000, untakenWorkflowTaskMs: 1_000 });
  const live = await liveness();
  expect(live).toMatchObject({ violations: [], waiting: [] });
  expect(live.judged).toBeGreaterThan(0);

  await stack.temporal.stopWorker();
  await stack.chain.testClient.mine({ blocks: 1 });
  const { violations } = await liveness();
  expect(violations).toContainEqual({
    invariant: '6 liveness',
    rule: 'a chain watcher is behind its chain',
    records: { chain: stack.chain.chain, nextBlock: expect.any(String), head: expect.any(String), waitedMs: '5000' },
  });
}, 120_000);
