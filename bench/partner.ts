/**
 * The partner (brokerage) in-kind flow, measured end to end on the partner stack (harness/partner-stack.ts: anvil
 * with the product's contracts, the issuer API on a real port, the brokerage sandbox, the worker, the chain watcher
 * polling every CHAIN_POLL_INTERVAL_MS, 1 s by default):
 * - partner mints: `inFlight` mints of MINT_QTY AAPL kept in flight through the sandbox's participant endpoint for
 *   `seconds`, each from its submission to its broker record `completed`; mints per minute and p50/p99 latency;
 * - redemptions: `redemptions` burns from the enabled wallet, one sent every BURN_SPACING_MS, each from its receipt
 *   (mined) to the broker's redeem record `completed` (shares journalled back); p50/p99 latency.
 * The session limits never bite: MINT_QTY AAPL is a few dollars against the smallest limit ($250,000).
 * `npm run bench -- partner` prints them alone; `npm run bench` runs them with the rest.
 */
import { randomBytes } from 'node:crypto';
import { maxUint256, parseEventLogs } from 'viem';
import { issuerAbi, stockTokenAbi } from '../contracts/abi';
import { createScratchDatabase } from '../harness/database';
import { basic, ISSUER_ID, startPartnerStack, waitUntil, type PartnerStack, type PartnerStackDatabase } from '../harness/partner-stack';
import { prepareDatabase } from '../start/database';
import { closedOnSignal } from './closed-on-signal';

const MINT_QTY = '0.01';
const BURN_SPACING_MS = 250;
const POLL_MS = 100;

export interface BenchPartnerResult {
  seconds: number;
  inFlight: number;
  pollIntervalMs: number;
  mints: { completed: number; perMinute: number; rejected: number; p50Ms: number; p99Ms: number; stages: MintStage[] };
  redemptions: { count: number; p50Ms: number; p99Ms: number };
}

/** One step of the measured mints, from the rows' timestamps: its median and p99 in ms. */
export interface MintStage {
  stage: string;
  p50Ms: number;
  p99Ms: number;
}

interface BrokerRecord {
  tokenization_request_id: string;
  issuer_request_id: string | null;
  status: string;
  reason?: string | null;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A scratch database on `serverUrl` for the partner stack: migrated, seeded, with a latest AAPLon price for the session limits. */
export async function partnerDatabase(serverUrl: string, prefix = 'bench_partner'): Promise<PartnerStackDatabase> {
  const database = await createScratchDatabase(serverUrl, { prefix, poolSize: 30 });
  try {
    await prepareDatabase(database.db, { now: Date.now() });
    await database.db.query(`INSERT INTO latest_prices (symbol, token_price, underlying_price, observed_at) VALUES ('AAPLon', '230', '230', $1)
                    ON CONFLICT (symbol) DO UPDATE SET observed_at = EXCLUDED.observed_at`, [Date.now()]);
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

/** The sandbox as the development participant. */
function participantApi(stack: PartnerStack) {
  const authorization = basic(stack.participant);
  const base = `${stack.broker.url}/v1/accounts/${stack.accountId}`;
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: object, idempotencyKey?: string): Promise<T> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    mint: (key: string) =>
      call<BrokerRecord>('POST', '/tokenization/mint', { underlying_symbol: 'AAPL', qty: MINT_QTY, issuer: ISSUER_ID, network: 'ethereum', wallet_address: stack.wallet }, key),
    record: (id: string) => call<BrokerRecord>('GET', `/tokenization/requests/${id}`),
    list: (query: string) => call<BrokerRecord[]>('GET', `/tokenization/requests?${query}&limit=500`),
  };
}

/**
 * Resolves each watched mint when its record leaves `pending`: one list of the pending mints per tick, and a read
 * of each watched record missing from it (watched before the list was asked for, so it cannot be too new to show).
 */
function mintWatcher(api: ReturnType<typeof participantApi>) {
  const watched = new Map<string, { since: number; settle(record: BrokerRecord): void; fail(error: unknown): void }>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const askedAt = Date.now();
      if (watched.size > 0) {
        try {
          const pending = new Set((await api.list('type=mint&status=pending')).map((record) => record.tokenization_request_id));
          const settled = [...watched].filter(([id, entry]) => entry.since < askedAt && !pending.has(id));
          await Promise.all(
            settled.map(async ([id, entry]) => {
              const record = await api.record(id);
              if (record.status === 'pending') return;
              watched.delete(id);
              entry.settle(record);
            }),
          );
        } catch (error) {
          for (const entry of watched.values()) entry.fail(error);
          watched.clear();
        }
      }
      await sleep(POLL_MS);
    }
  })();
  return {
    settled: (id: string, since: number) => new Promise<BrokerRecord>((settle, fail) => watched.set(id, { since, settle, fail })),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function measureMints(stack: PartnerStack, seconds: number, inFlight: number): Promise<BenchPartnerResult['mints']> {
  const api = participantApi(stack);
  const watcher = mintWatcher(api);
  const latencies: number[] = [];
  const completed: string[] = [];
  let rejected = 0;
  let completedInWindow = 0;
  const started = Date.now();
  const end = started + seconds * 1_000;
  try {
    const lane = async () => {
      while (Date.now() < end) {
        const submittedAt = Date.now();
        const { tokenization_request_id: id } = await api.mint(`bench-${randomBytes(8).toString('hex')}`);
        const record = await watcher.settled(id, Date.now());
        const completedAt = Date.now();
        if (record.status !== 'completed') {
          rejected += 1;
          if (rejected === 1) process.stderr.write(`partner bench: mint ${id} ended ${record.status}: ${record.reason ?? ''}\n`);
          continue;
        }
        latencies.push(completedAt - submittedAt);
        completed.push(id);
        if (completedAt <= end) completedInWindow += 1;
      }
    };
    await Promise.all(Array.from({ length: inFlight }, lane));
  } finally {
    await watcher.stop();
  }
  if (latencies.length === 0) throw new Error(`no partner mint completed in ${seconds} s (${rejected} rejected)`);
  latencies.sort((a, b) => a - b);
  return {
    completed: completedInWindow,
    perMinute: (completedInWindow / seconds) * 60,
    rejected,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    stages: await mintStages(stack, completed),
  };
}

/**
 * Where a mint's time goes, from the rows each side stamps: the broker's record stored → the issuer's request
 * stored (issuance POSTed) → the mint transaction's signing begun (after the broker's confirm; the wait for the
 * sender's nonce lock falls in the next step) → its receipt recorded → the broker's record completed (callback).
 */
async function mintStages(stack: PartnerStack, ids: string[]): Promise<MintStage[]> {
  const { rows } = await stack.database.db.query<Record<string, number>>(
    `SELECT extract(epoch FROM p.created_at - b.created_at) * 1000 AS "broker record → issuer request",
            extract(epoch FROM t.created_at - p.created_at) * 1000 AS "issuer request → mint tx signing (confirm, workflow)",
            extract(epoch FROM t.updated_at - t.created_at) * 1000 AS "mint tx signing → receipt recorded",
            extract(epoch FROM b.updated_at - t.updated_at) * 1000 AS "receipt → broker record completed (callback)"
       FROM broker.tokenization_requests b
       JOIN partner_requests p ON p.tokenization_request_id = b.tokenization_request_id::text
       JOIN chain_transactions t ON t.key LIKE 'partner-mint-' || p.issuer_request_id || ':%'
      WHERE b.tokenization_request_id::text = ANY($1::text[])`,
    [ids],
  );
  if (rows.length === 0) return [];
  return Object.keys(rows[0]!).map((stage) => {
    const sorted = rows.map((row) => Number(row[stage])).sort((a, b) => a - b);
    return { stage, p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)) };
  });
}

async function measureRedemptions(stack: PartnerStack, count: number): Promise<BenchPartnerResult['redemptions']> {
  const { chain } = stack;
  const wallet = chain.walletOf(3);
  const token = stack.tokens.AAPLon!;
  const balance = await chain.client.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [stack.wallet] });
  const amount = balance / BigInt(count * 2);
  if (amount === 0n) throw new Error(`the wallet holds ${balance} AAPLon base units: too few for ${count} redemptions`);
  await chain.client.waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: token, abi: stockTokenAbi, functionName: 'approve', args: [chain.deployment.issuer, maxUint256] }),
  });

  const api = participantApi(stack);
  const mined = new Map<string, number>();
  const latencies: number[] = [];
  let sending = true;
  const poll = (async () => {
    const deadline = () => Date.now() + 120_000;
    let giveUpAt = deadline();
    while (sending || mined.size > 0) {
      if (mined.size > 0) {
        const seenAt = Date.now();
        for (const record of await api.list('type=redeem&status=completed')) {
          const minedAt = record.issuer_request_id ? mined.get(record.issuer_request_id) : undefined;
          if (minedAt === undefined) continue;
          latencies.push(seenAt - minedAt);
          mined.delete(record.issuer_request_id!);
          giveUpAt = deadline();
        }
      }
      if (Date.now() > giveUpAt) throw new Error(`${mined.size} redemptions never completed at the broker`);
      await sleep(POLL_MS);
    }
  })();
  poll.catch(() => undefined); // awaited below; a failure while burns are still being sent must not go unhandled
  try {
    for (let i = 0; i < count; i += 1) {
      const receipt = await chain.client.waitForTransactionReceipt({
        hash: await wallet.writeContract({ address: chain.deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [token, amount] }),
      });
      const minedAt = Date.now();
      const [redeemed] = parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: receipt.logs });
      if (!redeemed) throw new Error(`burn ${receipt.transactionHash} emitted no IssuerRedeem`);
      mined.set(`redemption-${chain.context.network.chainId}-${receipt.transactionHash.toLowerCase()}-${redeemed.logIndex}`, minedAt);
      await sleep(BURN_SPACING_MS);
    }
  } catch (error) {
    mined.clear();
    throw error;
  } finally {
    sending = false;
  }
  await poll;
  latencies.sort((a, b) => a - b);
  return { count, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

export async function benchPartner(serverUrl: string, options: { seconds?: number; inFlight?: number; redemptions?: number; pollIntervalMs?: number } = {}): Promise<BenchPartnerResult> {
  const seconds = options.seconds ?? 10;
  const inFlight = options.inFlight ?? 20;
  const redemptions = options.redemptions ?? 50;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const stack = await startPartnerStack({ database: await partnerDatabase(serverUrl), chainPollIntervalMs: pollIntervalMs });
  return await closedOnSignal(stack, async () => {
    // One mint first, so the measured ones do not pay for the first workflow, connection and contract call.
    const api = participantApi(stack);
    const warmUp = await api.mint(`bench-warm-up-${randomBytes(4).toString('hex')}`);
    await waitUntil(`the warm-up mint ${warmUp.tokenization_request_id} to complete`, async () => (await api.record(warmUp.tokenization_request_id)).status === 'completed', 60_000);
    const mints = await measureMints(stack, seconds, inFlight);
    return { seconds, inFlight, pollIntervalMs, mints, redemptions: await measureRedemptions(stack, redemptions) };
  });
}

export function formatPartner(result: BenchPartnerResult): string[] {
  const { mints, redemptions } = result;
  return [
    `Partner in-kind flow through the brokerage sandbox, chain watcher polling every ${result.pollIntervalMs} ms`,
    `  mints of ${MINT_QTY} AAPL, ${result.inFlight} in flight for ${result.seconds} s: ${mints.perMinute.toFixed(0)} mints/min (${mints.completed} completed${mints.rejected ? `, ${mints.rejected} rejected` : ''})`,
    `  mint submitted → broker record completed: p50 ${mints.p50Ms} ms   p99 ${mints.p99Ms} ms`,
    ...mints.stages.map((stage) => `    ${stage.stage}: p50 ${stage.p50Ms} ms   p99 ${stage.p99Ms} ms`),
    `  burn mined → broker redeem record completed (${redemptions.count}, one every ${BURN_SPACING_MS} ms): p50 ${redemptions.p50Ms} ms   p99 ${redemptions.p99Ms} ms`,
  ];
}
