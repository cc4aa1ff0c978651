/**
 * Hedges and proof of reserves, measured on the partner stack (harness/partner-stack.ts: anvil with the product's
 * contracts, the issuer API on a real port, the brokerage sandbox trading in a pinned regular session with its fills
 * after 100 ms, the worker with its chain watcher polling every second) with the product's own HEDGE_WINDOW_MS:
 * - hedge latency: `executions` attestation mints of SPYon executed on chain one every EXECUTION_SPACING_MS, each
 *   from its execution final (its hedge obligation written, in the transaction that makes it final) to the fill of
 *   the order it was netted into recorded by the worker; p50/p99, and how many orders they were netted into;
 * - reserves computation: `computeReserves` (supply of every asset at the final block of each chain, the broker's
 *   positions, what is in flight; stored and acted on) `computations` times, on both EVM chains: the stack's chain
 *   and a second anvil chain started for this, the product's contracts deployed there too.
 * `npm run bench -- hedging` prints them alone; `npm run bench` runs them with the rest.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { maxUint256, parseUnits, type Hex } from 'viem';
import { createReservesActivities, type ReservesComputation } from '../activities/reserves';
import { anvilAccount } from '../chains/anvil';
import { stablecoinAbi, tokenManagerAbi } from '../contracts/abi';
import { recordWatcherProgress } from '../db/queries/chain-watcher';
import { EVM_CHAINS } from '../domain/chains';
import { defaultConfig, quietLogger } from '../harness/settings';
import { startPartnerStack, waitUntil, type PartnerStack } from '../harness/partner-stack';
import { BrokerClient } from '../partner/broker-client';
import { ensureDeployments, startLocalChains } from '../start/chains';
import { closedOnSignal } from './closed-on-signal';
import { partnerDatabase } from './partner';

const EXECUTION_SPACING_MS = 100;
const TOKENS = '0.01';

interface Latency {
  p50Ms: number;
  p99Ms: number;
}

export interface BenchHedgingResult {
  hedgeWindowMs: number;
  executions: number;
  orders: number;
  hedge: Latency;
  reserves: Latency & { computations: number; assets: number; chains: string[] };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const latency = (values: number[]): Latency => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)) };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Attests a SPYon buy through the API as the stack's client and executes it on chain from the enabled wallet. */
async function attestAndExecute(stack: PartnerStack, nonce: number): Promise<Hex> {
  const response = await fetch(`${stack.apiUrl}/v1/attestations`, {
    method: 'POST',
    headers: { 'x-api-key': stack.api.keys.write, 'content-type': 'application/json' },
    body: JSON.stringify({ symbol: 'SPYon', side: 'buy', tokenAmount: TOKENS, duration: 'long' }),
  });
  const body = (await response.json()) as Record<string, string>;
  if (response.status !== 200) throw new Error(`attesting answered ${response.status}: ${JSON.stringify(body)}`);
  const quote = {
    chainId: BigInt(body.chainId!),
    attestationId: BigInt(body.attestationId!),
    userId: body.userId as Hex,
    asset: body.assetAddress as Hex,
    price: BigInt(body.price!),
    quantity: BigInt(body.tokenAmount!),
    expiration: BigInt(body.expiration!),
    side: 0,
    additionalData: `0x${Buffer.from(body.additionalData!, 'base64').toString('hex')}` as Hex,
  };
  const signature = `0x${Buffer.from(body.signature!, 'base64').toString('hex')}` as Hex;
  const { tokenManager, stablecoin } = stack.chain.deployment;
  return stack.chain.walletOf(3).writeContract({
    address: tokenManager,
    abi: tokenManagerAbi,
    functionName: 'mintWithAttestation',
    args: [quote, signature, stablecoin, parseUnits('100000', 6)],
    gas: 600_000n,
    nonce,
  });
}

async function measureHedges(stack: PartnerStack, executions: number): Promise<{ hedge: Latency; orders: number }> {
  const { db } = stack.database;
  const { client } = stack.chain;
  const wallet = stack.chain.walletOf(3);
  const { stablecoin, tokenManager } = stack.chain.deployment;
  await client.waitForTransactionReceipt({
    hash: await stack.chain.walletOf(0).writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [wallet.account.address, parseUnits('100000000', 6)] }),
  });
  await client.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [tokenManager, maxUint256] }) });
  let nonce = await client.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' });
  const hashes: Hex[] = [];
  for (let i = 0; i < executions; i += 1) {
    await db.query(`UPDATE latest_prices SET observed_at = $1 WHERE symbol = 'SPYon'`, [Date.now()]);
    hashes.push(await attestAndExecute(stack, nonce++));
    await sleep(EXECUTION_SPACING_MS);
  }
  for (const hash of hashes) {
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`execution ${hash} reverted`);
  }
  const filled = `FROM hedge_obligations h JOIN hedge_orders o ON o.batch_id = h.batch_id AND o.side = h.side WHERE h.underlying = 'SPY' AND o.state = 'filled'`;
  await waitUntil(
    `the hedges of ${executions} executions to be filled`,
    async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n ${filled}`)).rows[0]!.n >= executions,
    180_000,
    200,
  );
  const { rows } = await db.query<{ ms: number; clientOrderId: string }>(`SELECT extract(epoch FROM o.filled_at - h.owed_at) * 1000 AS ms, o.client_order_id AS "clientOrderId" ${filled}`);
  return { hedge: latency(rows.map((row) => Number(row.ms))), orders: new Set(rows.map((row) => row.clientOrderId)).size };
}

/** computeReserves over the stack's chain and a second local chain with the product's contracts. */
async function measureReserves(stack: PartnerStack, computations: number): Promise<BenchHedgingResult['reserves']> {
  const logger = quietLogger();
  const second = EVM_CHAINS.find((chain) => chain !== stack.chain.chain)!;
  const running = await startLocalChains({ logger, chains: [second] });
  try {
    await ensureDeployments({ db: stack.database.db, chains: running, attestationSigner: anvilAccount(9).address, logger });
    // No watcher runs on the second chain: its cursor is moved past the deployment as its watcher would have, so the
    // supply is read where the tokens exist.
    const head = Number(await running.chains[second]!.client.getBlockNumber());
    await recordWatcherProgress(stack.database.db, second, { nextBlock: head + 1, seenHead: head, finalBlock: head });
    const chains = { ...stack.chain.running.chains, ...running.chains };
    const broker = new BrokerClient({ url: stack.broker.url, accountId: stack.seeded.issuerAccount.accountId, key: stack.issuerCredential.key, secret: stack.issuerCredential.secret });
    const { computeReserves } = createReservesActivities({ db: stack.database.db, chains, broker, toleranceBps: defaultConfig().RESERVES_TOLERANCE_BPS });
    const environment = new MockActivityEnvironment();
    await environment.run(computeReserves); // warm-up: connections, the contracts' first reads
    const times: number[] = [];
    let assets = 0;
    for (let i = 0; i < computations; i += 1) {
      const computed: ReservesComputation = await environment.run(computeReserves);
      times.push(computed.ms);
      assets = computed.assets;
    }
    return { ...latency(times), computations, assets, chains: Object.keys(chains) };
  } finally {
    await running.stop();
  }
}

export async function benchHedging(serverUrl: string, options: { executions?: number; computations?: number } = {}): Promise<BenchHedgingResult> {
  const executions = options.executions ?? 100;
  const computations = options.computations ?? 20;
  const { HEDGE_WINDOW_MS: hedgeWindowMs, RESERVES_INTERVAL_MS: reservesIntervalMs } = defaultConfig();
  const database = await partnerDatabase(serverUrl, 'bench_hedging');
  await database.db.query(`INSERT INTO latest_prices (symbol, token_price, underlying_price, observed_at) VALUES ('SPYon', '600', '600', $1)
                  ON CONFLICT (symbol) DO UPDATE SET observed_at = EXCLUDED.observed_at`, [Date.now()]);
  // The session limits never bite, whatever the hour.
  await database.db.query(`UPDATE session_limits SET max_attestation_count = 1000000, max_active_notional_value = 1e15, max_session_notional_value = 1e15 WHERE symbol = 'SPYon'`);
  const stack = await startPartnerStack({ database, hedgeWindowMs, reservesIntervalMs });
  return await closedOnSignal(stack, async () => {
    const { hedge, orders } = await measureHedges(stack, executions);
    return { hedgeWindowMs, executions, orders, hedge, reserves: await measureReserves(stack, computations) };
  });
}

export function formatHedging(result: BenchHedgingResult): string[] {
  const { hedge, reserves } = result;
  return [
    `Hedges and reserves on the partner stack (HEDGE_WINDOW_MS ${result.hedgeWindowMs}, sandbox fills after 100 ms)`,
    `  execution final → hedge order filled, ${result.executions} SPYon mints one every ${EXECUTION_SPACING_MS} ms netted into ${result.orders} orders: p50 ${hedge.p50Ms} ms   p99 ${hedge.p99Ms} ms`,
    `  reserves of ${reserves.assets} assets on ${reserves.chains.join(' and ')} computed, stored and acted on (${reserves.computations} times): p50 ${reserves.p50Ms} ms   p99 ${reserves.p99Ms} ms`,
  ];
}
