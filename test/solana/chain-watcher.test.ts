/**
 * The Solana chain watcher (activities/solana-watcher.ts, run by the product's worker as `chain-watcher-solana-900`)
 * on the local ledger through its JSON-RPC, real PostgreSQL, the in-memory Temporal service, the product's worker and
 * the brokerage sandbox. The ledger's slots move only when the test says (`slot()`), with `confirmed` one slot and
 * `finalized` three slots behind the tip, so each stage is reached on purpose, never waited for by the clock.
 * Attestations are stored in SQL with the transaction the issuer signs for them (signing/solana-transaction.ts); a
 * development wallet of npm start's set-up signs and sends it.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { getBase64EncodedWireTransaction, getTransactionDecoder, type Address, type SignatureBytes } from '@solana/kit';
import { getMintToCheckedInstruction } from '@solana-program/token';
import { MockActivityEnvironment } from '@temporalio/testing';
import { register } from 'prom-client';
import { chainsPage } from '../../console/pages/business';
import { WATCHER_STALL_SECONDS } from '../../domain/watcher-stall';
import { createProcessMetrics } from '../../metrics/process-metrics';
import { DefaultLogger } from '@temporalio/worker';
import { createReservesActivities, type ReservesComputation } from '../../activities/reserves';
import { rpcNonceLedger } from '../../chains/solana-ledger';
import { deriveSolanaContext, type SolanaContext } from '../../chains/solana-context';
import { solanaIssuerSigner } from '../../chains/solana-accounts';
import { storeAttestationsAndCommit } from '../../db/queries/attestations';
import { recordObservedExecutions } from '../../db/queries/chain-observations';
import { pinnedClock, quietLogger, testConfig } from '../../harness/settings';
import { productBundle } from '../../harness/workflow-bundle';
import { BrokerClient } from '../../partner/broker-client';
import { decodeBase58, encodeBase58, signSolanaAttestationTransaction } from '../../signing';
import { QUOTE_SIDE } from '../../signing/quote';
import { startSolanaLedger, type SolanaLedger } from '../../solana-ledger';
import { newSandboxSecrets, sandboxConnection, startSandbox, type RunningSandbox } from '../../start/partner-sandbox';
import { ensureSolanaSetup, type SolanaDevWallet, type SolanaStackChain } from '../../start/solana-setup';
import { startTemporal, type RunningTemporal } from '../../start/temporal';
import { attestationStateQuery, chainWatcherResumeSignal, chainWatcherStateQuery, type ChainWatcherState } from '../../temporal/messages';
import { attestationWorkflowId, SOLANA_CHAIN_WATCHER_WORKFLOW_ID } from '../../temporal/workflow-ids';
import { startWorker, type RunningWorker } from '../../worker/start-worker';
import { createTestApi } from '../support/api';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually } from '../support/eventually';
import { rpcCall, rpcResult, send, signedTransaction } from '../support/solana';

const SYMBOLS = ['AAPLon', 'SPYon'];
const CHAIN = 'solana-900';
const ACCOUNT = 'acct_solana_watcher';
const USER_ID = `0x${'5a'.repeat(32)}`;
const logger = quietLogger();

let database: TestDb;
let ledger: SolanaLedger;
let temporal: RunningTemporal;
let sandbox: RunningSandbox;
let worker: RunningWorker | undefined;
let issuerSecretKey: Uint8Array;
let setup: { chain: SolanaStackChain; wallets: SolanaDevWallet[] };
let solana: SolanaContext;
let broker: ReturnType<typeof sandboxConnection>;
// The nonce pool's keeper finds the set-up's six accounts enough and sends nothing while the test moves the slots.
const config = testConfig({
  TEMPORAL_TASK_QUEUE: `solana-watcher-${process.pid}-${Date.now()}`,
  CHAIN_POLL_INTERVAL_MS: 100,
  HEDGE_WINDOW_MS: 100,
  SOLANA_NONCE_POOL_SIZE: 6,
  SOLANA_NONCE_POOL_LOW_WATER: 0,
});

const db = () => database.db;
async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  return (await db().query(sql, values)).rows as T[];
}

async function startProductWorker(): Promise<void> {
  worker = await startWorker({ config, temporal, db: db(), logger, bundleCode: await productBundle(), solana: { rpcUrl: ledger.rpcUrl, issuerSecretKey }, broker });
}

async function stopProductWorker(): Promise<void> {
  await worker?.stop();
  worker = undefined;
}

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  // Slots on a fast timer while npm start's set-up confirms its transactions; then only when the test says.
  ledger = await startSolanaLedger({ slotMs: 20, confirmedLag: 1, finalizedLag: 3 });
  const seed = Uint8Array.from({ length: 32 }, (_, index) => index + 7);
  issuerSecretKey = new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);
  setup = await ensureSolanaSetup({ rpcUrl: ledger.rpcUrl, issuerSecretKey, symbols: SYMBOLS, noncePoolSize: 6, faucet: true, wallets: true, logger });
  ledger.ledger.stop();
  solana = await deriveSolanaContext({ rpcUrl: ledger.rpcUrl, issuerSecretKey, symbols: SYMBOLS });

  // What the product issues Solana attestations for: the issuer's mints (the addresses the API answers).
  for (const symbol of SYMBOLS) {
    await db().query(`UPDATE asset_addresses SET address = $3, decimals = 9 WHERE symbol = $1 AND network_chain_id = $2`, [symbol, CHAIN, solana.mints.get(symbol)]);
  }
  await db().query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'solana watcher test')`, [ACCOUNT, USER_ID]);

  const secrets = newSandboxSecrets();
  sandbox = await startSandbox({
    db: db(),
    logger,
    host: '127.0.0.1',
    port: 0,
    issuerApiUrl: 'http://127.0.0.1:9',
    secrets,
    deployments: [],
    timing: { retryInitialMs: 100, retryMaxMs: 1_000, pollMs: 100 },
    trading: { clock: pinnedClock(), fillLatencyMs: 100 },
  });
  broker = sandboxConnection(sandbox.url, secrets, { timeoutMs: 2_000 });
  temporal = await startTemporal(config, { logger, inMemory: true });
  await startProductWorker();
}, 180_000);

afterAll(async () => {
  await stopProductWorker().catch(() => undefined);
  await temporal?.stop();
  await sandbox?.stop();
  await ledger?.stop();
  await database?.drop();
});

/** `count` slots pass on the ledger. */
function slot(count = 1): void {
  for (let index = 0; index < count; index += 1) ledger.ledger.advanceSlot();
}

const watcherState = (): Promise<ChainWatcherState> => temporal.client.workflow.getHandle(SOLANA_CHAIN_WATCHER_WORKFLOW_ID).query(chainWatcherStateQuery);

/** Waits until the watcher has acted on the ledger's finalized slot as it is now. */
async function watcherReachedFinalized(): Promise<void> {
  const finalized = ledger.ledger.slotAt('finalized');
  await eventually(async () => expect((await query<{ final: number }>(`SELECT final_block::int AS final FROM chain_cursors WHERE chain = $1`, [CHAIN]))[0]?.final).toBeGreaterThanOrEqual(finalized), 30_000);
}

let nextId = 7_000_000n;
let nextNonce = 0;

/**
 * An attestation of `tokenAmount` `symbol` at `price` for development wallet `walletIndex`, stored as the API stores
 * one (its workflow started through the outbox), with the transaction the issuer signed for it on the next nonce
 * account of the pool; answers its id and the wire transaction completed by the wallet's signature.
 */
async function attestation(parameters: { side: 'buy' | 'sell'; symbol?: string; tokenAmount: string; price: string; walletIndex?: number }) {
  const symbol = parameters.symbol ?? 'AAPLon';
  const wallet = setup.wallets[parameters.walletIndex ?? 0]!;
  const attestationId = (nextId += 1n);
  const nonceAccount = setup.chain.noncePool[nextNonce++ % setup.chain.noncePool.length]! as Address;
  const nonce = await rpcNonceLedger(ledger.rpcUrl, 'processed').readNonce(nonceAccount);
  const scale = 10n ** 18n;
  const signed = await signSolanaAttestationTransaction(
    {
      ...solana,
      attestationId,
      side: parameters.side === 'buy' ? QUOTE_SIDE.buy : QUOTE_SIDE.sell,
      user: wallet.address as Address,
      stockMint: solana.mints.get(symbol)!,
      stockDecimals: solana.tokenDecimals,
      price: BigInt(parameters.price) * scale,
      quantity: BigInt(parameters.tokenAmount) * scale,
      nonceAccount,
      nonce: nonce!,
    },
    (message) => ed25519.sign(message, issuerSecretKey.subarray(0, 32)),
  );
  const now = Date.now();
  const client = await db().connect();
  try {
    await client.query('BEGIN');
    await storeAttestationsAndCommit(client, [
      {
        attestation: {
          attestationId: String(attestationId), accountId: ACCOUNT, userId: USER_ID, symbol, chain: CHAIN, side: parameters.side, duration: 'long',
          tokenAmount: parameters.tokenAmount, price: parameters.price, notional: String(BigInt(parameters.tokenAmount) * BigInt(parameters.price)),
          session: 'regular', sessionStartedAt: now - 60_000, createdAt: now, expiresAt: now + 600_000, userAddress: wallet.address,
          assetAddress: solana.mints.get(symbol)!, signature: signed.signature, additionalData: signed.additionalData, response: {}, idempotencyKey: null, requestHash: 'h',
        },
      },
    ]);
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  // The wallet completes the transaction with its own signature.
  const transaction = getTransactionDecoder().decode(Buffer.from(signed.additionalData, 'base64'));
  const userSignature = ed25519.sign(Uint8Array.from(transaction.messageBytes), decodeBase58(wallet.secretKey)!.subarray(0, 32)) as SignatureBytes;
  const wire = getBase64EncodedWireTransaction({ ...transaction, signatures: { ...transaction.signatures, [wallet.address]: userSignature } });
  return { id: String(attestationId), wire, tokens: signed.amounts.tokens };
}

const stateOf = async (id: string) => (await query<{ state: string }>(`SELECT state FROM attestations WHERE attestation_id = $1`, [id]))[0]!.state;
const executionsOf = (id: string) =>
  query<{ txHash: string; status: string; blockNumber: number; quantity: string; side: string }>(
    `SELECT tx_hash AS "txHash", status, block_number::int AS "blockNumber", quantity::text, side FROM trade_executions WHERE chain = $1 AND attestation_id = $2`,
    [CHAIN, id],
  );
const obligationsOf = (id: string) =>
  query<{ txHash: string; tokens: string; side: string; underlying: string }>(
    `SELECT tx_hash AS "txHash", trim_scale(tokens)::text AS tokens, side, underlying FROM hedge_obligations WHERE chain = $1 AND attestation_id = $2`,
    [CHAIN, id],
  );
const supplyOf = async (symbol: string) =>
  BigInt((await rpcResult<{ value: { amount: string } }>(ledger.rpcUrl, 'getTokenSupply', [solana.mints.get(symbol), { commitment: 'processed' }])).value.amount);

describe('the Solana chain watcher', () => {
  test('is started by the worker as chain-watcher-solana-900 and keeps its cursor beside the EVM ones', async () => {
    slot();
    await eventually(async () => expect((await watcherState()).scans).toBeGreaterThan(0), 30_000);
    const [cursor] = await query<{ seenHead: number; status: string }>(`SELECT seen_head::int AS "seenHead", status FROM chain_cursors WHERE chain = $1`, [CHAIN]);
    expect(cursor).toEqual({ seenHead: expect.any(Number), status: 'ok' });
  });

  test('a buy the wallet sends is executing at confirmed and executed at finalized, once, with its hedge obligation; the same transaction sent again lands nothing', async () => {
    const buy = await attestation({ side: 'buy', tokenAmount: '3', price: '200' });
    await eventually(async () => expect(await temporal.client.workflow.getHandle(attestationWorkflowId(buy.id)).query(attestationStateQuery)).toMatchObject({ state: 'outstanding' }), 30_000);
    const supplyBefore = await supplyOf('AAPLon');
    const signature = await send(ledger.rpcUrl, buy.wire);
    expect(await supplyOf('AAPLon')).toBe(supplyBefore + buy.tokens);

    // Processed only: the watcher reads at confirmed, so nothing yet.
    await watcherReachedFinalized();
    expect(await stateOf(buy.id)).toBe('outstanding');

    slot();
    await eventually(async () => expect(await stateOf(buy.id)).toBe('executing'), 30_000);
    expect(await executionsOf(buy.id)).toEqual([{ txHash: signature, status: 'seen', blockNumber: expect.any(Number), quantity: '3000000000000000000', side: 'buy' }]);
    expect(await obligationsOf(buy.id)).toEqual([]);
    await eventually(async () => expect(await temporal.client.workflow.getHandle(attestationWorkflowId(buy.id)).query(attestationStateQuery)).toMatchObject({ state: 'executing', txHash: signature }), 30_000);

    // Sent again, with and without preflight: refused, or answered and dropped — it never lands twice.
    expect((await rpcCall(ledger.rpcUrl, 'sendTransaction', [buy.wire, { encoding: 'base64' }])).error?.message).toMatch(/already been processed/);
    expect(await send(ledger.rpcUrl, buy.wire, { skipPreflight: true })).toBe(signature);
    expect(await supplyOf('AAPLon')).toBe(supplyBefore + buy.tokens);

    slot(3);
    await eventually(async () => expect(await stateOf(buy.id)).toBe('executed'), 30_000);
    await watcherReachedFinalized();
    const [executed] = await executionsOf(buy.id);
    expect(executed).toEqual({ txHash: signature, status: 'final', blockNumber: expect.any(Number), quantity: '3000000000000000000', side: 'buy' });
    // Its block is the slot's, as the ledger names it.
    const [recorded] = await query<{ blockHash: string }>(`SELECT block_hash AS "blockHash" FROM trade_executions WHERE tx_hash = $1`, [signature]);
    expect(recorded?.blockHash).toBe((await rpcResult<{ blockhash: string }>(ledger.rpcUrl, 'getBlock', [executed!.blockNumber, { commitment: 'finalized', transactionDetails: 'none', rewards: false }])).blockhash);
    expect(await obligationsOf(buy.id)).toEqual([{ txHash: signature, tokens: '3', side: 'buy', underlying: 'AAPL' }]);
    await eventually(async () => expect(await temporal.client.workflow.getHandle(attestationWorkflowId(buy.id)).query(attestationStateQuery)).toMatchObject({ state: 'executed', txHash: signature }), 30_000);
    // The hedge is ordered at the broker and filled.
    await eventually(async () => {
      const [order] = await query<{ side: string; state: string; qty: string }>(`SELECT side, state, qty::text FROM hedge_orders WHERE underlying = 'AAPL'`);
      expect(order).toMatchObject({ side: 'buy', state: 'filled' });
    }, 60_000);
  });

  test('a transaction that fails on chain is no execution: its attestation stays outstanding', async () => {
    // A sell of more tokens than the wallet holds: the burn fails; sent without preflight, it lands failed (fee paid).
    const sell = await attestation({ side: 'sell', tokenAmount: '50', price: '200', walletIndex: 1 });
    const signature = await send(ledger.rpcUrl, sell.wire, { skipPreflight: true });
    slot(4);
    const [status] = (await rpcResult<{ value: ({ err: unknown; confirmationStatus: string } | null)[] }>(ledger.rpcUrl, 'getSignatureStatuses', [[signature]])).value;
    expect(status).toMatchObject({ confirmationStatus: 'finalized', err: expect.anything() });
    await watcherReachedFinalized();
    expect(await stateOf(sell.id)).toBe('outstanding');
    expect(await executionsOf(sell.id)).toEqual([]);
    expect(await obligationsOf(sell.id)).toEqual([]);
  });

  test('the worker stopped between confirmed and finalized: the execution is recorded once after its restart', async () => {
    const sell = await attestation({ side: 'sell', tokenAmount: '1', price: '210' });
    const signature = await send(ledger.rpcUrl, sell.wire);
    slot();
    await eventually(async () => expect(await stateOf(sell.id)).toBe('executing'), 30_000);
    await stopProductWorker();
    slot(3);
    expect(await stateOf(sell.id)).toBe('executing');
    await startProductWorker();
    await eventually(async () => expect(await stateOf(sell.id)).toBe('executed'), 30_000);
    await watcherReachedFinalized();
    expect(await executionsOf(sell.id)).toEqual([{ txHash: signature, status: 'final', blockNumber: expect.any(Number), quantity: '1000000000000000000', side: 'sell' }]);
    expect(await obligationsOf(sell.id)).toEqual([{ txHash: signature, tokens: '1', side: 'sell', underlying: 'AAPL' }]);
    await eventually(async () => expect(await query(`SELECT kind FROM chain_outbox WHERE chain = $1`, [CHAIN])).toEqual([]), 30_000);
  });

  test('the reserves count each Solana mint at finalized, and a supply no hedge backs pauses the asset', async () => {
    const reserves = createReservesActivities({ db: db(), solana, broker: new BrokerClient(broker), toleranceBps: 1 });
    const compute = (): Promise<ReservesComputation> => new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') }).run(reserves.computeReserves);
    const snapshotOf = async (symbol: string) =>
      (await query<{ snapshot: { tokens: { byChain: Record<string, string>; blocks: Record<string, number> } }; status: string }>(
        `SELECT snapshot, status FROM reserve_snapshots WHERE symbol = $1 ORDER BY taken_at DESC LIMIT 1`,
        [symbol],
      ))[0]!;

    slot(4);
    await watcherReachedFinalized();
    const first = await compute();
    const aapl = await snapshotOf('AAPLon');
    // Bought 3, sold 1 (the failed sell burned nothing).
    expect(aapl.snapshot.tokens.byChain[CHAIN]).toBe('2');
    expect(aapl.snapshot.tokens.blocks[CHAIN]).toBe(ledger.ledger.slotAt('finalized'));
    expect((await snapshotOf('SPYon')).snapshot.tokens.byChain[CHAIN]).toBe('0');
    expect(first.short).not.toContain('AAPLon');

    // A buy the watcher saw at confirmed and has not made final yet, its slot finalized on the ledger (the worker
    // stopped meanwhile): in the supply read at finalized, but owing no hedge yet — left out until it does.
    const buy = await attestation({ side: 'buy', tokenAmount: '4', price: '200' });
    await send(ledger.rpcUrl, buy.wire);
    slot();
    await eventually(async () => expect(await stateOf(buy.id)).toBe('executing'), 30_000);
    await stopProductWorker();
    slot(3);
    expect(await supplyOf('AAPLon')).toBe(6_000_000_000n);
    const unfinal = await compute();
    expect((await snapshotOf('AAPLon')).snapshot.tokens.byChain[CHAIN]).toBe('2');
    expect(unfinal.short).not.toContain('AAPLon');
    await startProductWorker();
    await eventually(async () => expect(await stateOf(buy.id)).toBe('executed'), 30_000);
    await watcherReachedFinalized();
    const final = await compute();
    expect((await snapshotOf('AAPLon')).snapshot.tokens.byChain[CHAIN]).toBe('6');
    expect(final.short).not.toContain('AAPLon');

    // Tokens minted on Solana without an attestation (the mint authority used outside the product): nothing backs them.
    const issuer = await solanaIssuerSigner(issuerSecretKey);
    const holder = (await rpcResult<{ value: { pubkey: string }[] }>(ledger.rpcUrl, 'getTokenAccountsByOwner', [setup.wallets[0]!.address, { mint: solana.mints.get('AAPLon') }, { commitment: 'processed', encoding: 'base64' }])).value[0]!.pubkey;
    await send(
      ledger.rpcUrl,
      await signedTransaction(ledger.rpcUrl, issuer, [getMintToCheckedInstruction({ mint: solana.mints.get('AAPLon')!, token: holder as Address, mintAuthority: issuer, amount: 5_000_000_000n, decimals: 9 })]),
    );
    slot(4);
    const second = await compute();
    expect((await snapshotOf('AAPLon')).snapshot.tokens.byChain[CHAIN]).toBe('11');
    expect(second.short).toContain('AAPLon');
    expect(await query(`SELECT symbol FROM reserve_pauses WHERE symbol = 'AAPLon'`)).toEqual([{ symbol: 'AAPLon' }]);
  });

  test('/ready, the metrics and the console show the Solana watcher: up while it scans, down once it has not scanned for the stall time while slots pass', async () => {
    const api = await createTestApi({ database, fixtureDeployments: false, solanaRpcUrl: ledger.rpcUrl });
    const judged = async () => {
      const ready = await api.http.get('/ready');
      const metrics = await createProcessMetrics({ role: 'worker', db: db(), poolMax: 1, solanaRpcUrl: () => ledger.rpcUrl }).metrics();
      const console = String(await chainsPage(db(), { page: 1 }, api.app.services.readinessChecks));
      return { ready: ready.body.checks as Record<string, { status: string; error?: string }>, metrics, console };
    };
    try {
      slot();
      const up = await judged();
      expect(up.ready['chain solana-900']).toMatchObject({ status: 'up' });
      expect(up.ready['watcher solana-900']).toMatchObject({ status: 'up' });
      expect(up.metrics).toMatch(/^issuer_chain_watcher_final_block\{chain="solana-900"\} \d+$/m);
      expect(up.metrics).toMatch(/^issuer_chain_watcher_lag_blocks\{chain="solana-900"\} \d+$/m);
      expect(up.metrics).toMatch(/^issuer_chain_watcher_stalled\{chain="solana-900"\} 0$/m);
      expect(await register.metrics()).toMatch(/^issuer_chain_scan_step_seconds_count\{chain="solana-900",step="read"\} [1-9]\d*$/m);
      expect(up.console).toContain('<a href="/console/workflows/chain-watcher-solana-900">chain-watcher-solana-900</a>');

      // The worker stopped, its last scan long ago, slots passing: stalled, in every place an operator looks.
      await stopProductWorker();
      await db().query(`UPDATE chain_cursors SET seen_head_at = now() - make_interval(secs => $2) WHERE chain = $1`, [CHAIN, WATCHER_STALL_SECONDS * 2]);
      slot(2);
      const down = await judged();
      expect(down.ready['watcher solana-900']).toMatchObject({ status: 'down', error: expect.stringMatching(/^stalled/) });
      expect(down.metrics).toMatch(/^issuer_chain_watcher_stalled\{chain="solana-900"\} 1$/m);
      expect(down.console).toContain('stalled');
    } finally {
      await api.close();
      if (!worker) await startProductWorker();
    }
  });

  test('an execution seen at confirmed that is gone when its slot is finalized halts the watcher; resumed with reanchor, it is undone and the rest read again once', async () => {
    // As if the watcher had seen, at confirmed, a transaction in a slot the cluster later dropped (the local ledger never does).
    const lost = await attestation({ side: 'buy', tokenAmount: '1', price: '200' });
    const slotSeen = ledger.ledger.slotAt('confirmed');
    const phantom = encodeBase58(Uint8Array.from({ length: 64 }, (_, index) => index + 1));
    const live = async () => (await query<{ count: number }>(`SELECT count(*)::int AS count FROM trade_executions WHERE chain = $1 AND status <> 'orphaned'`, [CHAIN]))[0]!.count;
    const before = await live();
    await stopProductWorker();
    await recordObservedExecutions(db(), CHAIN, [
      {
        txHash: phantom as `0x${string}`, logIndex: 0, blockNumber: slotSeen, blockHash: 'dropped' as `0x${string}`, executionId: lost.id, attestationId: lost.id,
        userId: USER_ID as `0x${string}`, side: 'buy', asset: solana.mints.get('AAPLon')! as `0x${string}`, price: '200000000000000000000', quantity: '1000000000000000000',
        executedAt: Date.now(), final: false,
      },
    ]);
    expect(await stateOf(lost.id)).toBe('executing');
    await startProductWorker();
    slot(4);

    await eventually(async () => expect(await watcherState()).toMatchObject({ status: 'halted', halt: { type: 'CHAIN_LOG_UNPROCESSABLE', txHash: phantom, blockNumber: slotSeen } }), 30_000);
    const [cursor] = await query<{ status: string; message: string }>(`SELECT status, last_error->>'message' AS message FROM chain_cursors WHERE chain = $1`, [CHAIN]);
    expect(cursor).toEqual({ status: 'halted', message: expect.stringContaining('no longer on the ledger') });
    expect(await stateOf(lost.id)).toBe('executing');

    await temporal.client.workflow.getHandle(SOLANA_CHAIN_WATCHER_WORKFLOW_ID).signal(chainWatcherResumeSignal, { reanchor: true });
    await eventually(async () => expect(await watcherState()).toMatchObject({ status: 'watching' }), 30_000);
    slot();
    await watcherReachedFinalized();
    await eventually(async () => expect(await stateOf(lost.id)).toBe('outstanding'), 30_000);
    expect(await query(`SELECT status FROM trade_executions WHERE tx_hash = $1`, [phantom])).toEqual([{ status: 'orphaned' }]);
    // Everything else read again from the start of the issuer's history: recorded once, as before.
    expect(await live()).toBe(before);
    expect(await query(`SELECT last_signature IS NOT NULL AS read FROM chain_cursors WHERE chain = $1`, [CHAIN])).toEqual([{ read: true }]);
  });
});
