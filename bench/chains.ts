/**
 * Chain watching, measured on the product's parts (start/): a local anvil chain with the product's contracts (a block
 * every 0.5 s, `finalized` four blocks below the head, as `npm start`'s chains — but without also mining each
 * transaction at once, so that finality moves with time as on a real chain), the embedded Temporal service in memory
 * and the product's worker with its chain watcher:
 * - seen latency: from a transaction mined (its receipt there) to what users and operators see at once — the
 *   attestation `executing`, the redemption `awaiting_finality` — and final latency: to what happens only at
 *   finality — the attestation `executed`, the redemption `pending` with its workflow started; p50/p99 over `events`
 *   of each, with the watcher polling every CHAIN_POLL_INTERVAL_MS (1 s, the default);
 * - scan throughput: one `scanChain` over a range holding `scanEvents` TradeExecuted logs (mined in a few full
 *   blocks) of attestations whose workflows run, in logs per second, recording and signalling included, with the
 *   time in each step of the watcher's polls (read from the chain, recorded, workflows told).
 * `npm run bench -- chains` prints them alone; `npm run bench` runs them with the rest.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWalletClient, encodeFunctionData, http, maxUint256, parseUnits, type Hex } from 'viem';
import { createChainWatcherActivities, type ScanChainResult } from '../activities/chain-watcher';
import { BatchedStore } from '../attestations/batched-store';
import { issueAttestation } from '../attestations/issue-attestation';
import { anvilAccount, LOCAL_CHAIN_MINING } from '../chains/anvil';
import { viemChain } from '../chains/networks';
import { identityRegistryAbi, issuerAbi, stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../contracts/abi';
import { createAccount } from '../db/queries/accounts';
import { listAssets } from '../db/queries/assets';
import { readWatcherCursor, resetChainCursor } from '../db/queries/chain-watcher';
import { bareChainId, DEFAULT_CHAIN } from '../domain/chains';
import { Decimal } from '../domain/money';
import { createScratchDatabase } from '../harness/database';
import { startLocalChain } from '../harness/local-chain';
import { quietLogger, testConfig } from '../harness/settings';
import { productBundle } from '../harness/workflow-bundle';
import { CHAIN_SCAN_STEPS, chainScanStepSeconds, type ChainScanStep } from '../metrics/metrics';
import { loadSigners } from '../signing';
import { prepareDatabase } from '../start/database';
import { Parts } from '../start/parts';
import { startTemporal } from '../start/temporal';
import { chainWatcherWorkflowId } from '../temporal/workflow-ids';
import { startWorker } from '../worker/start-worker';

interface Latency {
  p50Ms: number;
  p99Ms: number;
}

export interface BenchChainsResult {
  events: number;
  pollIntervalMs: number;
  execution: { seen: Latency; final: Latency };
  redemption: { seen: Latency; final: Latency };
  /** `steps`: the scan's time in each step of its polls (`issuer_chain_scan_step_seconds`), ms. */
  scan: { logs: number; ms: number; logsPerSecond: number; steps: Record<ChainScanStep, number> };
}

/** The time the watcher's polls of `chain` spent in each step so far, ms (the histogram's sums). */
async function scanStepTotals(chain: string): Promise<Record<ChainScanStep, number>> {
  const totals = Object.fromEntries(CHAIN_SCAN_STEPS.map((step) => [step, 0])) as Record<ChainScanStep, number>;
  for (const sample of (await chainScanStepSeconds.get()).values) {
    if (sample.metricName?.endsWith('_sum') && sample.labels.chain === chain) totals[sample.labels.step as ChainScanStep] += sample.value * 1000;
  }
  return totals;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const latency = (sorted: number[]): Latency => ({ p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) });

/**
 * Polls until `expected` events were detected: `pending` (key → mined at) fills while the events are sent. Two
 * detectors watch one stream of events (seen, final) through a copy of `pending` each.
 */
async function detectionLatencies(expected: number, pending: Map<string, number>, detect: (keys: string[]) => Promise<string[]>): Promise<number[]> {
  const latencies: number[] = [];
  const deadline = Date.now() + 300_000;
  while (latencies.length < expected) {
    if (Date.now() > deadline) throw new Error(`${expected - latencies.length} events were never detected`);
    const seenAt = Date.now();
    if (pending.size > 0) {
      for (const key of await detect([...pending.keys()])) {
        latencies.push(seenAt - pending.get(key)!);
        pending.delete(key);
      }
    }
    await sleep(10);
  }
  return latencies.sort((a, b) => a - b);
}

export async function benchChains(serverUrl: string, options: { events?: number; scanEvents?: number; pollIntervalMs?: number } = {}): Promise<BenchChainsResult> {
  const events = options.events ?? 200;
  const scanEvents = options.scanEvents ?? 5_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const logger = quietLogger();
  const config = testConfig({ TEMPORAL_TASK_QUEUE: 'bench-chains', CHAIN_POLL_INTERVAL_MS: pollIntervalMs });
  const chainName = DEFAULT_CHAIN;
  const parts = new Parts(logger);
  try {
    const database = await createScratchDatabase(serverUrl, { prefix: 'bench_chains', poolSize: 20 });
    parts.add({ name: 'database', stop: () => database.drop() });
    const { db } = database;
    await prepareDatabase(db, { now: Date.now() });
    await db.query(`UPDATE session_limits SET max_attestation_count = 1000000, max_active_notional_value = 1e15, max_session_notional_value = 1e15`);
    const signers = loadSigners({ dataDir: mkdtempSync(path.join(tmpdir(), 'bench-chains-signers-')) });
    // Blocks on the interval only (not one per transaction as well): finality then moves with time, as on a real chain.
    const local = await startLocalChain({ db, chain: chainName, attestationSigner: signers.evm.address, mining: { ...LOCAL_CHAIN_MINING, mineTransactionsAtOnce: false } });
    parts.add({ name: 'chain', stop: () => local.stop() });
    const { context, deployment, issuer, testClient } = local;
    const chains = local.running.chains;
    const transport = http(context.network.rpcUrl);
    const chain = viemChain(context.network);
    const wallet = createWalletClient({ chain, account: anvilAccount(1), transport });
    const issuerWallet = createWalletClient({ chain, account: issuer, transport });
    const account = await createAccount(db, 'bench');
    const registry = await context.client.readContract({ address: deployment.issuer, abi: issuerAbi, functionName: 'registry' });
    await context.client.waitForTransactionReceipt({
      hash: await issuerWallet.writeContract({ address: registry, abi: identityRegistryAbi, functionName: 'register', args: [wallet.account.address, account.userId] }),
    });
    await context.client.waitForTransactionReceipt({
      hash: await issuerWallet.writeContract({ address: deployment.stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('100000000', 6)] }),
    });
    await context.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: deployment.stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [deployment.tokenManager, maxUint256] }),
    });
    const spy = (await listAssets(db)).find((asset) => asset.symbol === 'SPYon')!;
    const store = new BatchedStore();
    const settings = { maxPriceAgeMs: 3_600_000, limitedMaxOrderNotional: new Decimal('1e12'), offhoursGlobalExposure: new Decimal('1e15'), offhoursAssetExposure: new Decimal('1e15') };
    const attest = async () => {
      const now = Date.now();
      await db.query(`INSERT INTO latest_prices (symbol, token_price, underlying_price, observed_at) VALUES ('SPYon', '600', '600', $1)
                      ON CONFLICT (symbol) DO UPDATE SET observed_at = EXCLUDED.observed_at`, [now]);
      const created = await issueAttestation(
        { db, signers, settings, store },
        { caller: { accountId: account.id, userId: account.userId }, asset: spy, request: { symbol: 'SPYon', side: 'buy', tokenAmount: '1', duration: 'long', chainId: chainName }, now },
      );
      const body = created.attestation;
      const quote = {
        chainId: bareChainId(chainName),
        attestationId: BigInt(body.attestationId),
        userId: body.userId as Hex,
        asset: body.assetAddress as Hex,
        price: BigInt(body.price),
        quantity: BigInt(body.tokenAmount),
        expiration: BigInt(body.expiration),
        side: 0,
        additionalData: `0x${Buffer.from(body.additionalData, 'base64').toString('hex')}` as Hex,
      };
      return { attestationId: body.attestationId, args: [quote, `0x${Buffer.from(body.signature, 'base64').toString('hex')}` as Hex, deployment.stablecoin, parseUnits('1000', 6)] as const };
    };

    const temporal = await startTemporal(config, { logger, inMemory: true });
    parts.add(temporal);
    const { client } = temporal;
    // The product's worker starts the chain's watcher, polling every CHAIN_POLL_INTERVAL_MS.
    const worker = await startWorker({ config, temporal, db, logger, bundleCode: await productBundle(), chains: local.running });
    parts.add(worker);
    const watcher = client.workflow.getHandle(chainWatcherWorkflowId(context.network.chainId));

    /** Tells when a sent transaction's receipt appears (looked for every 20 ms): latencies count from there. */
    const whenMined = (hash: Hex, mined: (at: number) => void) => {
      void context.client.waitForTransactionReceipt({ hash, pollingInterval: 20 }).then(() => mined(Date.now()));
    };

    // Executions: one sent every 50 ms; seen = the attestation executing (or already executed) in SQL, final = executed.
    const mintedSeen = new Map<string, number>();
    const mintedFinal = new Map<string, number>();
    const attestationsIn = (states: string[]) => async (ids: string[]) => {
      const { rows } = await db.query<{ id: string }>(`SELECT attestation_id::text AS id FROM attestations WHERE attestation_id = ANY($1::numeric[]) AND state = ANY($2)`, [ids, states]);
      return rows.map((row) => row.id);
    };
    const executionSeen = detectionLatencies(events, mintedSeen, attestationsIn(['executing', 'executed']));
    const executionFinal = detectionLatencies(events, mintedFinal, attestationsIn(['executed']));
    for (let i = 0; i < events; i += 1) {
      const { attestationId, args } = await attest();
      const hash = await wallet.writeContract({ address: deployment.tokenManager, abi: tokenManagerAbi, functionName: 'mintWithAttestation', args });
      whenMined(hash, (minedAt) => {
        mintedSeen.set(attestationId, minedAt);
        mintedFinal.set(attestationId, minedAt);
      });
      await sleep(50);
    }
    const [executionSeenLatencies, executionFinalLatencies] = await Promise.all([executionSeen, executionFinal]);

    // Redemptions: a burn every 50 ms; detection = the redemption recorded.
    const spyToken = await context.client.readContract({ address: deployment.issuer, abi: issuerAbi, functionName: 'tokenBySymbol', args: ['SPYon'] });
    await context.client.waitForTransactionReceipt({
      hash: await wallet.writeContract({ address: spyToken, abi: stockTokenAbi, functionName: 'approve', args: [deployment.issuer, maxUint256] }),
    });
    // Burns: seen = the redemption recorded (awaiting finality), final = no longer awaiting it (its workflow started).
    const burnedSeen = new Map<string, number>();
    const burnedFinal = new Map<string, number>();
    const redemptionsWhere = (condition: string) => async (hashes: string[]) => {
      const { rows } = await db.query<{ hash: string }>(`SELECT tx_hash AS hash FROM redemptions WHERE tx_hash = ANY($1) AND ${condition}`, [hashes]);
      return rows.map((row) => row.hash);
    };
    const redemptionSeen = detectionLatencies(events, burnedSeen, redemptionsWhere('true'));
    const redemptionFinal = detectionLatencies(events, burnedFinal, redemptionsWhere(`state NOT IN ('awaiting_finality', 'cancelled')`));
    for (let i = 0; i < events; i += 1) {
      const hash = await wallet.writeContract({ address: deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [spyToken, parseUnits('0.5', 18)] });
      whenMined(hash, (minedAt) => {
        burnedSeen.set(hash, minedAt);
        burnedFinal.set(hash, minedAt);
      });
      await sleep(50);
    }
    const [redemptionSeenLatencies, redemptionFinalLatencies] = await Promise.all([redemptionSeen, redemptionFinal]);
    await watcher.terminate('benchmark: scan measured on its own');

    // Scan throughput: `scanEvents` executions mined in a few full blocks, then one scan over them.
    const startBlock = Number(await context.client.getBlockNumber()) + 1;
    await testClient.setAutomine(false);
    let nonce = await context.client.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' });
    const fees = await context.client.estimateFeesPerGas();
    for (let i = 0; i < scanEvents; i += 1) {
      const { args } = await attest();
      const raw = await wallet.account.signTransaction({
        type: 'eip1559',
        chainId: context.network.chainId,
        nonce,
        to: deployment.tokenManager,
        data: encodeFunctionData({ abi: tokenManagerAbi, functionName: 'mintWithAttestation', args }),
        gas: 400_000n,
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      await context.client.sendRawTransaction({ serializedTransaction: raw });
      nonce += 1;
    }
    while (Number((await testClient.getTxpoolStatus()).pending) > 0) await testClient.mine({ blocks: 1 });
    await testClient.setAutomine(true);
    // Every attestation's workflow running (the worker starts them from the outbox) before the scan signals them.
    while ((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestation_workflow_starts')).rows[0]!.n > 0) await sleep(100);
    await resetChainCursor(db, chainName, startBlock);
    const scanner = createChainWatcherActivities({
      db,
      chains,
      temporal: client,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      blockRange: config.CHAIN_SCAN_BLOCK_RANGE,
      settlementGraceMs: config.ATTESTATION_SETTLEMENT_GRACE_MS,
      hedgeWindowMs: 100,
    });
    const environment = new MockActivityEnvironment();
    const stepsBefore = await scanStepTotals(chainName);
    const scanStarted = performance.now();
    let logs = 0;
    for (;;) {
      const scan: ScanChainResult = await environment.run(scanner.scanChain, { chain: chainName });
      logs += scan.executions + scan.redemptions;
      if (scan.caughtUp) break;
    }
    const scanMs = performance.now() - scanStarted;
    const stepsAfter = await scanStepTotals(chainName);
    const steps = Object.fromEntries(CHAIN_SCAN_STEPS.map((step) => [step, stepsAfter[step] - stepsBefore[step]])) as Record<ChainScanStep, number>;
    if ((await readWatcherCursor(db, chainName))!.nextBlock <= startBlock) throw new Error('the scan did not move the cursor');
    return {
      events,
      pollIntervalMs,
      execution: { seen: latency(executionSeenLatencies), final: latency(executionFinalLatencies) },
      redemption: { seen: latency(redemptionSeenLatencies), final: latency(redemptionFinalLatencies) },
      scan: { logs, ms: scanMs, logsPerSecond: (logs / scanMs) * 1000, steps },
    };
  } finally {
    await parts.stopped();
  }
}

export function formatChains(result: BenchChainsResult): string[] {
  return [
    `Chain watching on a local anvil chain (a block every 0.5 s, finalized 4 blocks below the head, about 2 s), polling every ${result.pollIntervalMs} ms, ${result.events} events each`,
    `  seen:  execution mined → attestation executing:     p50 ${result.execution.seen.p50Ms} ms   p99 ${result.execution.seen.p99Ms} ms (goal p99 ≤ ${result.pollIntervalMs + 1000} ms)`,
    `         burn mined → redemption awaiting finality:   p50 ${result.redemption.seen.p50Ms} ms   p99 ${result.redemption.seen.p99Ms} ms (goal p99 ≤ ${result.pollIntervalMs + 1000} ms)`,
    `  final: execution mined → attestation executed:      p50 ${result.execution.final.p50Ms} ms   p99 ${result.execution.final.p99Ms} ms`,
    `         burn mined → redemption final (workflow):    p50 ${result.redemption.final.p50Ms} ms   p99 ${result.redemption.final.p99Ms} ms`,
    `  scan of ${result.scan.logs} TradeExecuted logs: ${result.scan.ms.toFixed(0)} ms, ${result.scan.logsPerSecond.toFixed(0)} logs/s (goal ≥ 5,000)`,
    `    of which read from the chain ${result.scan.steps.read.toFixed(0)} ms, recorded ${result.scan.steps.record.toFixed(0)} ms, workflows told ${result.scan.steps.deliver.toFixed(0)} ms`,
  ];
}
