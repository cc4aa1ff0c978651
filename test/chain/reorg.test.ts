/**
 * Chain reorganisations on a local anvil chain, end to end through the partner stack (chain watcher polling every
 * 200 ms, brokerage sandbox, API): anvil's interval mining is paused after set-up, so every block here is mined by
 * the test and `finalized` (four blocks below the head) moves only when the test says so.
 * - depth 1 and 2 before finality: an execution goes back to `outstanding`, a burn's redemption is cancelled with
 *   nothing delivered and no broker callback; the same quote executed again is recorded with its new tx; a burn the
 *   new chain includes again is delivered once at finality;
 * - the old wedge: a re-execution reusing the orphaned execution counter is recorded, and later logs are still seen;
 * - a worker that dies between a rewind's commit and its signals: the next one delivers them;
 * - an execution seen before its attestation's workflow is started waits in the outbox until it is (the watcher polls
 *   every 200 ms, the worker's starts every 100 ms: a signal to no workflow used to be dropped);
 * - a reorganisation deeper than the window, after finality, and a log recorded live in another block: the watcher
 *   halts loudly (state query, SQL, /ready) and does nothing on that chain until an operator resumes it.
 * After every case the invariant: the final executions recorded equal the chain's TradeExecuted logs up to its
 * finalized block, and the shares delivered equal the final burns × the multiplier, rounded down to nine decimals.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { encodeFunctionData, maxUint256, parseEventLogs, parseUnits, type Hex } from 'viem';
import { createChainWatcherActivities } from '../../activities/chain-watcher';
import { resetChainCursor } from '../../db/queries/chain-watcher';
import { issuerAbi, stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../../contracts/abi';
import { Decimal } from '../../domain/money';
import { sharesForTokens } from '../../domain/partner';
import { attestationStateQuery, chainWatcherResumeSignal, chainWatcherStateQuery, type ChainWatcherState } from '../../temporal/messages';
import { attestationWorkflowId, chainWatcherWorkflowId } from '../../temporal/workflow-ids';
import { quoteOf, signatureOf } from '../support/quotes';
import { eventually, recordProductHistory } from '../support/temporal';
import { brokerGet, brokerPost, ISSUER_ID, startPartnerStack, type PartnerStack } from '../partner/support';

let stack: PartnerStack;

const rpc = (method: string, params: unknown[]) => stack.chain.client.request({ method, params } as never);
const mine = (blocks: number) => stack.chain.testClient.mine({ blocks });
/** Mines past `finalized`: the current head becomes final (four blocks below the head on the local chains). */
const finalize = () => mine(5);
/** Replaces the last `depth` blocks with new ones holding `included` (raw transactions, in the first new block). */
const reorg = (depth: number, included: Hex[] = []) => rpc('anvil_reorg', [depth, included.map((raw) => [raw, 0])]);
const db = () => stack.database.db;
const write = () => stack.api.keys.write;

async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  return (await db().query(sql, values)).rows as T[];
}

const watcher = () => stack.temporal.client.workflow.getHandle(chainWatcherWorkflowId(stack.chain.context.network.chainId));
const watcherState = (): Promise<ChainWatcherState> => watcher().query(chainWatcherStateQuery);
const attestation = async (id: string) => (await stack.api.http.get(`/v1/attestations/${id}`).set('x-api-key', write())).body;
const issuerRequest = async (id: string) => (await stack.api.http.get(`/v1/tokenization/requests/${id}`).set('x-api-key', stack.api.keys.admin)).body;

/** One poll of the chain outside the watcher workflow (as a worker runs `scanChain`), talking to Temporal through `temporal`. */
function scanOnce(temporal: Client) {
  const scanner = createChainWatcherActivities({
    db: db(),
    chains: { 'ethereum-1': stack.chain.context },
    temporal,
    taskQueue: stack.temporal.taskQueue,
    blockRange: 50,
    settlementGraceMs: 60_000,
    hedgeWindowMs: 100,
  });
  return new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(scanner.scanChain, { chain: 'ethereum-1' });
}

/** A signed transaction from the enabled wallet (anvil account 3), sent; answers its receipt and its raw bytes. */
async function send(to: `0x${string}`, data: Hex): Promise<{ hash: Hex; raw: Hex; blockNumber: bigint; blockHash: Hex; logs: readonly { topics: readonly Hex[]; data: Hex }[] }> {
  const wallet = stack.chain.walletOf(3);
  const raw = await wallet.signTransaction(await wallet.prepareTransactionRequest({ to, data, gas: 600_000n }));
  const hash = await stack.chain.client.sendRawTransaction({ serializedTransaction: raw });
  const receipt = await stack.chain.client.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return { hash, raw, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, logs: receipt.logs };
}

/** An attestation for one SPYon from the API (the account of the enabled wallet). */
type AttestationBody = Record<string, string> & { attestationId: string; signature: string };

async function attest(): Promise<AttestationBody> {
  await db().query('UPDATE latest_prices SET observed_at = $1', [Date.now()]);
  const created = await stack.api.http.post('/v1/attestations').set('x-api-key', write()).send({ symbol: 'SPYon', side: 'buy', tokenAmount: '1', duration: 'long' });
  expect(created.status).toBe(200);
  return created.body;
}

/** Executes an attestation on chain; `deposit` changes the transaction (and its hash) without changing the quote. */
function execute(body: AttestationBody, deposit = '10000') {
  return send(
    stack.chain.deployment.tokenManager,
    encodeFunctionData({ abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quoteOf(body), signatureOf(body), stack.chain.deployment.stablecoin, parseUnits(deposit, 6)] }),
  );
}

/** Burns AAPLon from the enabled wallet; answers the redemption id (its workflow id) with the transaction. */
async function burn(amount: bigint) {
  const sent = await send(stack.chain.deployment.issuer, encodeFunctionData({ abi: issuerAbi, functionName: 'redeem', args: [stack.tokens.AAPLon!, amount] }));
  const [redeemed] = parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: sent.logs as never });
  return { ...sent, redemptionId: `redemption-1-${sent.hash.toLowerCase()}-${redeemed!.logIndex}` };
}

/**
 * The invariant: once the watcher has acted up to the chain's finalized block, the final executions recorded are
 * exactly the TradeExecuted logs of the canonical chain up to it, the final redemptions exactly its IssuerRedeem logs,
 * and each of those is delivered once with tokens × multiplier rounded down to nine decimals — nothing for the rest.
 */
async function expectInvariant(): Promise<void> {
  const { client, deployment } = stack.chain;
  const finalized = (await client.getBlock({ blockTag: 'finalized' })).number;
  await eventually(async () => expect((await watcherState()).lastScan?.finalBlock).toBeGreaterThanOrEqual(Number(finalized)), 30_000);
  const range = { fromBlock: BigInt(deployment.deployedBlock), toBlock: finalized };
  const key = (log: { blockHash: string | null; transactionHash: string | null; logIndex: number | null }) => `${log.blockHash}/${log.transactionHash}/${log.logIndex}`;

  const trades = await client.getContractEvents({ address: deployment.tokenManager, abi: tokenManagerAbi, eventName: 'TradeExecuted', ...range });
  const finalExecutions = await query<{ blockHash: string; transactionHash: string; logIndex: number }>(
    `SELECT block_hash AS "blockHash", tx_hash AS "transactionHash", log_index AS "logIndex" FROM trade_executions WHERE chain = 'ethereum-1' AND status = 'final'`,
  );
  expect(finalExecutions.map(key).sort()).toEqual(trades.map(key).sort());

  const burns = await client.getContractEvents({ address: deployment.issuer, abi: issuerAbi, eventName: 'IssuerRedeem', ...range });
  const finalRedemptions = await query<{ blockHash: string; transactionHash: string; logIndex: number; redemptionId: string; amount: string }>(
    `SELECT block_hash AS "blockHash", tx_hash AS "transactionHash", log_index AS "logIndex", redemption_id AS "redemptionId", amount::text
       FROM redemptions WHERE chain = 'ethereum-1' AND state NOT IN ('awaiting_finality', 'cancelled') AND block_number <= $1`,
    [Number(finalized)],
  );
  expect(finalRedemptions.map(key).sort()).toEqual(burns.map(key).sort());

  // Every final burn delivered, once, with the shares it is owed; nothing delivered for any other.
  const delivered = await eventually(async () => {
    const rows = await query<{ redemptionId: string; state: string; multiplier: string | null; delivered: string | null; records: number }>(
      `SELECT p.issuer_request_id AS "redemptionId", p.state, p.shares_multiplier::text AS multiplier,
              (SELECT sum(j.qty)::text FROM broker.journal j JOIN broker.tokenization_requests t USING (tokenization_request_id)
                WHERE t.issuer_request_id = p.issuer_request_id AND j.reason = 'redeem') AS delivered,
              (SELECT count(*)::int FROM broker.tokenization_requests t WHERE t.issuer_request_id = p.issuer_request_id) AS records
         FROM partner_requests p WHERE p.kind = 'redeem'`,
    );
    for (const redemption of finalRedemptions) expect(rows.find((row) => row.redemptionId === redemption.redemptionId)?.state).toBe('completed');
    return rows;
  }, 60_000);
  const final = new Map(finalRedemptions.map((redemption) => [redemption.redemptionId, redemption]));
  let owed = new Decimal(0);
  let paid = new Decimal(0);
  for (const row of delivered) {
    const burnt = final.get(row.redemptionId);
    if (!burnt) {
      expect({ redemption: row.redemptionId, records: row.records, delivered: row.delivered }).toEqual({ redemption: row.redemptionId, records: 0, delivered: null });
      continue;
    }
    const { shares } = sharesForTokens(burnt.amount, row.multiplier!);
    expect({ redemption: row.redemptionId, delivered: new Decimal(row.delivered ?? 0).toFixed(9) }).toEqual({ redemption: row.redemptionId, delivered: new Decimal(shares).toFixed(9) });
    owed = owed.plus(shares);
    paid = paid.plus(row.delivered ?? 0);
  }
  expect(paid.toFixed(9)).toBe(owed.toFixed(9));
}

beforeAll(async () => {
  stack = await startPartnerStack();
  const { stablecoin, tokenManager, issuer } = stack.chain.deployment;
  const wallet = stack.chain.walletOf(3);
  await stack.chain.client.waitForTransactionReceipt({
    hash: await stack.chain.walletOf(0).writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('1000000', 6)] }),
  });
  await stack.chain.client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
  await stack.chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: stack.tokens.AAPLon!, abi: stockTokenAbi, functionName: 'approve', args: [issuer, maxUint256] }),
  });
  // AAPLon to burn: a partner mint through the broker (the chain still mines on its own here).
  const minted = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/mint`, {
    underlying_symbol: 'AAPL',
    qty: '20',
    issuer: ISSUER_ID,
    network: 'ethereum',
    wallet_address: stack.wallet,
  });
  expect(minted.status).toBe(201);
  await eventually(async () => expect((await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${minted.body.tokenization_request_id}`)).body.status).toBe('completed'), 60_000);
  // From here on, blocks come only when the test mines them (a transaction is still mined at once).
  await rpc('evm_setIntervalMining', [0]);
  await rpc('evm_setAutomine', [true]);
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe('a reorganisation before finality', () => {
  let orphanedTx: Hex;
  let reExecutedTx: Hex;

  test('depth 1: the executing attestation goes back to outstanding; the same quote executed again is recorded with its new tx, executed at finality', async () => {
    const body = await attest();
    const first = await execute(body);
    orphanedTx = first.hash;
    const seen = await eventually(async () => {
      const read = await attestation(body.attestationId);
      expect(read).toMatchObject({ state: 'executing', executionTxHash: first.hash, executionBlockNumber: Number(first.blockNumber) });
      return read;
    });
    expect(seen.confirmations).toBeGreaterThanOrEqual(1);
    const handle = stack.temporal.client.workflow.getHandle(attestationWorkflowId(body.attestationId));
    await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'executing', txHash: first.hash }));
    const executing = await stack.api.http.get('/v1/attestations?state=executing').set('x-api-key', write());
    expect(executing.body.attestations.map((listed: { attestationId: string }) => listed.attestationId)).toContain(body.attestationId);

    await reorg(1);
    await eventually(async () => expect(await attestation(body.attestationId)).toMatchObject({ state: 'outstanding', executionTxHash: null, confirmations: null }));
    await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'outstanding', txHash: null }));
    // The attestation is set back inside the scan; the watcher reports the reorganisation once that scan returns.
    await eventually(async () => expect((await watcherState()).lastReorg).toMatchObject({ replacedBlocks: 1, executionsOrphaned: 1 }));
    expect(await query(`SELECT status FROM trade_executions WHERE tx_hash = $1`, [first.hash])).toEqual([{ status: 'orphaned' }]);

    // The quote was never executed on the new chain: the same attestation executes again, in another transaction.
    const again = await execute(body, '9999');
    reExecutedTx = again.hash;
    expect(again.hash).not.toBe(first.hash);
    await eventually(async () => expect(await attestation(body.attestationId)).toMatchObject({ state: 'executing', executionTxHash: again.hash }));
    await finalize();
    await eventually(async () => expect(await attestation(body.attestationId)).toMatchObject({ state: 'executed', executionTxHash: again.hash, confirmations: null }));
    expect(await handle.result()).toMatchObject({ state: 'executed', txHash: again.hash });
    await expectInvariant();
  }, 90_000);

  test('the re-execution carries the orphaned execution counter (the old wedge): recorded, and later executions and burns are still seen', async () => {
    const rows = await query<{ tx: string; executionId: string; status: string }>(
      `SELECT tx_hash AS tx, execution_id::text AS "executionId", status FROM trade_executions WHERE tx_hash = ANY($1) ORDER BY status`,
      [[orphanedTx, reExecutedTx]],
    );
    expect(rows).toEqual([
      { tx: reExecutedTx, executionId: rows[0]!.executionId, status: 'final' },
      { tx: orphanedTx, executionId: rows[0]!.executionId, status: 'orphaned' },
    ]);

    const body = await attest();
    const later = await execute(body);
    const burnt = await burn(10n ** 17n);
    await finalize();
    await eventually(async () => expect(await attestation(body.attestationId)).toMatchObject({ state: 'executed', executionTxHash: later.hash }));
    await eventually(async () => expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'completed', txHash: burnt.hash }), 60_000);
    await expectInvariant();
  }, 120_000);

  test('depth 2: the execution goes back and the burn is cancelled, nothing delivered and no broker callback', async () => {
    const body = await attest();
    const executed = await execute(body);
    const burnt = await burn(2n * 10n ** 17n);
    await eventually(async () => {
      expect(await attestation(body.attestationId)).toMatchObject({ state: 'executing', executionTxHash: executed.hash });
      // Operators see the burn at once, awaiting finality.
      expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'awaiting_finality', status: 'pending', txHash: burnt.hash });
    });
    const listed = await stack.api.http.get('/v1/tokenization/requests?status=awaiting_finality').set('x-api-key', stack.api.keys.admin);
    expect(listed.body.requests.map((request: { issuerRequestId: string }) => request.issuerRequestId)).toContain(burnt.redemptionId);

    await reorg(2);
    await eventually(async () => {
      expect(await attestation(body.attestationId)).toMatchObject({ state: 'outstanding', executionTxHash: null });
      expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'cancelled', status: 'rejected', reason: expect.stringContaining('reorganisation') });
    });
    expect(await query(`SELECT state FROM redemptions WHERE redemption_id = $1`, [burnt.redemptionId])).toEqual([{ state: 'cancelled' }]);

    await finalize();
    await expectInvariant();
    // No workflow, no broker record, no shares for the burn that left the chain.
    await expect(stack.temporal.client.workflow.getHandle(burnt.redemptionId).describe()).rejects.toThrow();
    expect(await query(`SELECT 1 FROM broker.tokenization_requests WHERE issuer_request_id = $1`, [burnt.redemptionId])).toEqual([]);
    expect((await attestation(body.attestationId)).state).toBe('outstanding');
  }, 120_000);

  test('a burn the new chain includes again (same tx, same log index, new block) is revived and delivered once at finality', async () => {
    const burnt = await burn(3n * 10n ** 17n);
    await eventually(async () => expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'awaiting_finality' }));
    await reorg(1, [burnt.raw]);
    const moved = await stack.chain.client.getTransactionReceipt({ hash: burnt.hash });
    expect(moved.blockHash).not.toBe(burnt.blockHash);
    await eventually(async () => {
      const [row] = await query<{ state: string; blockHash: string }>(`SELECT state, block_hash AS "blockHash" FROM redemptions WHERE redemption_id = $1`, [burnt.redemptionId]);
      expect(row).toEqual({ state: 'awaiting_finality', blockHash: moved.blockHash });
    });
    await finalize();
    await eventually(async () => expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'completed' }), 60_000);
    expect(await query(`SELECT count(*)::int AS n FROM broker.tokenization_requests WHERE issuer_request_id = $1`, [burnt.redemptionId])).toEqual([{ n: 1 }]);
    await expectInvariant();
  }, 120_000);
  test("a partner mint's transaction dropped by a reorganisation is sent again (same bytes, same hash); the broker is called back once, at finality", async () => {
    const minted = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/mint`, {
      underlying_symbol: 'AAPL',
      qty: '1',
      issuer: ISSUER_ID,
      network: 'ethereum',
      wallet_address: stack.wallet,
    });
    expect(minted.status).toBe(201);
    const brokerRecord = async () => (await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${minted.body.tokenization_request_id}`)).body;
    const issuerRequestId = await eventually(async () => {
      const record = await brokerRecord();
      expect(record.issuer_request_id).toEqual(expect.any(String));
      return record.issuer_request_id as string;
    }, 30_000);
    // Included, not final (nothing mines): the request shows the transaction awaiting finality, the broker waits.
    const included = await eventually(async () => {
      const request = await issuerRequest(issuerRequestId);
      expect(request).toMatchObject({ state: 'confirmed', txHash: expect.stringMatching(/^0x/), workflow: { step: 'awaiting_finality' } });
      return request.txHash as Hex;
    }, 30_000);
    expect((await brokerRecord()).status).toBe('pending');

    const first = await stack.chain.client.getTransactionReceipt({ hash: included });
    await reorg(1);
    const again = await eventually(async () => {
      const receipt = await stack.chain.client.getTransactionReceipt({ hash: included });
      expect(receipt.blockHash).not.toBe(first.blockHash);
      return receipt;
    }, 30_000);
    expect(again.status).toBe('success');
    expect((await brokerRecord()).status).toBe('pending');

    await finalize();
    await eventually(async () => expect(await brokerRecord()).toMatchObject({ status: 'completed', tx_hash: included }), 60_000);
    const mints = await stack.chain.client.getContractEvents({ address: stack.chain.deployment.issuer, abi: issuerAbi, eventName: 'IssuerMint', fromBlock: 0n });
    expect(mints.filter((log) => log.args.tokenizationRequestId === minted.body.tokenization_request_id).map((log) => log.transactionHash)).toEqual([included]);
    expect(await query(`SELECT tx_hash AS "txHash", state, block_hash AS "blockHash" FROM chain_transactions WHERE key LIKE $1`, [`partner-mint-${issuerRequestId}:%`])).toEqual([
      { txHash: included, state: 'confirmed', blockHash: again.blockHash },
    ]);
    await expectInvariant();
  }, 120_000);
});

test('a worker that dies between a rewind and its signals: the rewind is committed, the next worker tells the workflows', async () => {
  const body = await attest();
  const executed = await execute(body);
  const handle = stack.temporal.client.workflow.getHandle(attestationWorkflowId(body.attestationId));
  await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'executing', txHash: executed.hash }));

  await stack.temporal.stopWorker();
  await reorg(1);
  // The poll that rewinds, run by a worker whose Temporal connection dies right after the commit.
  const dead = {
    workflow: {
      getHandle: () => ({ signal: () => Promise.reject(new Error('the worker died')) }),
      start: () => Promise.reject(new Error('the worker died')),
    },
  } as unknown as Client;
  await expect(scanOnce(dead)).rejects.toThrow('the worker died');
  expect((await attestation(body.attestationId)).state).toBe('outstanding');
  expect(await query(`SELECT kind FROM chain_outbox WHERE subject = $1`, [body.attestationId])).toEqual([{ kind: 'execution_orphaned' }]);

  await stack.startWorker();
  await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'outstanding', txHash: null }), 30_000);
  await eventually(async () => expect(await query(`SELECT kind FROM chain_outbox WHERE subject = $1`, [body.attestationId])).toEqual([]));
  await finalize();
  await expectInvariant();
}, 120_000);

test("an execution seen before its attestation's workflow is started reaches the workflow once it is", async () => {
  await stack.temporal.stopWorker();
  const body = await attest();
  const executed = await execute(body);
  // A poll that sees the execution while the attestation's workflow still waits in the outbox to be started.
  await scanOnce(stack.temporal.client);
  expect((await attestation(body.attestationId)).state).toBe('executing');
  expect(await query(`SELECT kind FROM chain_outbox WHERE subject = $1`, [body.attestationId])).toEqual([{ kind: 'execution_seen' }]);

  await stack.startWorker();
  const handle = stack.temporal.client.workflow.getHandle(attestationWorkflowId(body.attestationId));
  await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'executing', txHash: executed.hash }), 30_000);
  await eventually(async () => expect(await query(`SELECT kind FROM chain_outbox WHERE subject = $1`, [body.attestationId])).toEqual([]));
  await finalize();
  await eventually(async () => expect(await handle.query(attestationStateQuery)).toMatchObject({ state: 'executed', txHash: executed.hash }), 30_000);
  await expectInvariant();
}, 120_000);

test('a reorganisation after finality, deeper than the window, halts the watcher loudly; nothing irreversible happens until an operator resumes it', async () => {
  await mine(10);
  const head = Number(await stack.chain.client.getBlockNumber());
  await eventually(async () => expect((await watcherState()).lastScan).toMatchObject({ head, finalBlock: head - 4 }));
  await reorg(8);

  const halted = await eventually(async () => {
    const state = await watcherState();
    expect(state).toMatchObject({ status: 'halted', halt: { type: 'CHAIN_REORG_TOO_DEEP', chain: 'ethereum-1', blockNumber: head - 4 } });
    return state.halt!;
  }, 30_000);
  expect(halted.message).toContain(`block ${head - 4}`);
  expect(await query(`SELECT status, last_error->>'type' AS type FROM chain_cursors WHERE chain = 'ethereum-1'`)).toEqual([{ status: 'halted', type: 'CHAIN_REORG_TOO_DEEP' }]);
  const ready = await stack.api.http.get('/ready');
  expect(ready.status).toBe(503);
  expect(ready.body.checks['watcher ethereum-1']).toEqual({ status: 'down', error: expect.stringMatching(new RegExp(`^halted: .*block ${head - 4}`)) });

  // Halted: what happens on the chain now is neither seen nor acted on.
  const body = await attest();
  const executed = await execute(body);
  const burnt = await burn(10n ** 17n);
  await finalize();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect((await attestation(body.attestationId)).state).toBe('outstanding');
  expect(await query(`SELECT 1 FROM redemptions WHERE redemption_id = $1`, [burnt.redemptionId])).toEqual([]);
  expect((await watcherState()).status).toBe('halted');

  // The operator looked: the replaced blocks held nothing recorded. Re-anchor and watch again.
  await watcher().signal(chainWatcherResumeSignal, { reanchor: true });
  await eventually(async () => expect(await attestation(body.attestationId)).toMatchObject({ state: 'executed', executionTxHash: executed.hash }), 30_000);
  await eventually(async () => expect(await issuerRequest(burnt.redemptionId)).toMatchObject({ state: 'completed' }), 60_000);
  expect((await watcherState()).status).toBe('watching');
  expect((await stack.api.http.get('/ready')).status).toBe(200);
  await expectInvariant();
  await recordProductHistory('chain-watcher-halted-resumed', watcher());
}, 180_000);

test('a log recorded live in another block (a reorganisation the watcher missed) halts it, naming the block and the log', async () => {
  const [recorded] = await query<{ txHash: Hex; logIndex: number; blockNumber: number; blockHash: Hex }>(
    `SELECT tx_hash AS "txHash", log_index AS "logIndex", block_number AS "blockNumber", block_hash AS "blockHash"
       FROM trade_executions WHERE chain = 'ethereum-1' AND status = 'final' ORDER BY block_number DESC LIMIT 1`,
  );
  const elsewhere = `0x${'ee'.repeat(32)}`;
  await db().query(`UPDATE trade_executions SET block_hash = $2 WHERE tx_hash = $1 AND log_index = $3`, [recorded!.txHash, elsewhere, recorded!.logIndex]);
  await resetChainCursor(db(), 'ethereum-1', recorded!.blockNumber);

  const halt = await eventually(async () => {
    const state = await watcherState();
    expect(state).toMatchObject({ status: 'halted', halt: { type: 'CHAIN_LOG_UNPROCESSABLE', txHash: recorded!.txHash, logIndex: recorded!.logIndex, blockNumber: recorded!.blockNumber, blockHash: recorded!.blockHash } });
    return state.halt!;
  }, 30_000);
  expect(halt.message).toContain(elsewhere);
  const ready = await stack.api.http.get('/ready');
  expect([ready.status, ready.body.checks['watcher ethereum-1'].error]).toEqual([503, expect.stringContaining(`${recorded!.txHash}#${recorded!.logIndex}`)]);

  // The operator puts the record right and resumes: the watcher scans on, the record unchanged but for its block.
  await db().query(`UPDATE trade_executions SET block_hash = $2 WHERE tx_hash = $1 AND log_index = $3`, [recorded!.txHash, recorded!.blockHash, recorded!.logIndex]);
  await watcher().signal(chainWatcherResumeSignal, {});
  const head = Number(await stack.chain.client.getBlockNumber());
  await eventually(async () => expect(await watcherState()).toMatchObject({ status: 'watching', lastScan: { head } }), 30_000);
  await expectInvariant();
}, 120_000);

test('the watcher continues as new by the rule of the long-lived workflows, and its state query keeps what it showed', async () => {
  const before = await watcherState();
  expect(before.lastReorg).not.toBeNull();
  const { runId } = await watcher().describe();
  // A caught-up watcher polling every 200 ms reaches the rule's 1,000 events in a minute or so.
  await eventually(async () => expect((await watcher().describe()).runId).not.toBe(runId), 150_000);
  const after = await watcherState();
  expect(after).toMatchObject({ status: 'watching', lastReorg: before.lastReorg });
  expect(after.scans).toBeGreaterThan(before.scans);
  expect(after.lastScan!.at).toBeGreaterThanOrEqual(before.lastScan!.at);
}, 180_000);
