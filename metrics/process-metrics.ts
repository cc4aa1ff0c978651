/**
 * What a process's metrics read when scraped, in a registry of their own: Node's and the process's defaults
 * (prom-client: CPU, memory, handles, event-loop lag), the PostgreSQL pool's usage, and — read from the database every
 * role shares — partner requests and the age of the oldest one not final, redemptions by state, the issuer's chain
 * transactions by state, outstanding attestations and their notional, each chain watcher's seen and final heads, how
 * long since it last scanned, whether it is halted, and with the chains' RPC its lag behind the head and whether it is
 * stalled (domain/watcher-stall.ts); the last reserves
 * computation (coverage, shortfall, its age), the assets whose minting it paused, the chains an operator paused, and hedge
 * orders by state, the Solana nonce pool's accounts by state, webhook deliveries pending (and the oldest's age) and
 * webhook endpoints by state. Each gauge reads
 * its own series when scraped; a reading that fails (the database down) leaves them out of that scrape and counts in
 * `issuer_metrics_read_errors_total`.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { webhookGauges } from '../db/queries/webhook-metrics';
import type { ChainContexts } from '../chains/context';
import type { Database } from '../db/pool';
import { outstandingAttestationTotals } from '../db/queries/attestations';
import { countChainTransactionsByState } from '../db/queries/chain-transactions';
import { listWatcherCursors, type WatcherCursorSummary } from '../db/queries/chain-watcher';
import { countHedgeOrdersByState } from '../db/queries/hedging';
import { partnerRequestGauges } from '../db/queries/partner-requests';
import { countRedemptionsByState } from '../db/queries/redemptions';
import { latestReserveSnapshot, listReservePauses } from '../db/queries/reserves';
import { listChainPauses } from '../db/queries/chain-pauses';
import { countNonceAccounts } from '../db/queries/solana-nonces';
import { confirmedSlotReader } from '../chains/solana-slots';
import { CHAINS, SOLANA_CHAIN } from '../domain/chains';
import { watcherStalled } from '../domain/watcher-stall';

/** How long a scrape waits for a chain's head before leaving its lag out. */
const HEAD_TIMEOUT_MS = 2_000;

export interface ProcessMetricsParameters {
  /** `api`, `worker`, `feed` or `all` (npm start): the `role` label of `issuer_process_info`. */
  role: string;
  db: Database;
  /** The pool's size, for `issuer_db_pool_connections_max`. */
  poolMax: number;
  /** The chains this process reaches (once it does): each watcher's lag behind its chain's head. */
  chains?: () => ChainContexts | undefined;
  /** The Solana ledger's JSON-RPC this process reaches: the Solana watcher's lag behind its confirmed slot. */
  solanaRpcUrl?: () => string | undefined;
  clock?: () => number;
}

/**
 * One reading shared by the gauges that show parts of it: read at most once per scrape (a reading under a second
 * old is reused), so each gauge collects its own series from the same rows.
 */
function perScrape<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > 1_000) {
      last = { at: Date.now(), value: read() };
      last.value.catch(() => (last = undefined));
    }
    return last.value;
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

export function createProcessMetrics(parameters: ProcessMetricsParameters): Registry {
  const { db, chains } = parameters;
  const clock = parameters.clock ?? Date.now;
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const readErrors = new Counter({ name: 'issuer_metrics_read_errors_total', help: 'Database readings of a scrape that failed', registers });
  /** A gauge whose series `read` answers at each scrape; a failed reading is counted and leaves the gauge empty. */
  const readGauge = <L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Promise<[Partial<Record<L, string>>, number][]>) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        this.reset();
        try {
          for (const [labels, value] of await read()) this.set(labels, value);
        } catch {
          readErrors.inc();
        }
      },
    });

  new Gauge({ name: 'issuer_process_info', help: 'This process and its role (api, worker, feed, all)', labelNames: ['role'], registers }).set({ role: parameters.role }, 1);
  new Gauge({
    name: 'issuer_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total open, idle, waiting: requests queued for a connection)',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'total' }, db.totalCount);
      this.set({ state: 'idle' }, db.idleCount);
      this.set({ state: 'waiting' }, db.waitingCount);
    },
  });
  new Gauge({ name: 'issuer_db_pool_connections_max', help: 'The PostgreSQL pool size', registers }).set(parameters.poolMax);

  const partnerRequests = perScrape(() => partnerRequestGauges(db));
  readGauge('issuer_partner_requests', 'Partner (brokerage) mint and redeem requests by kind and state', ['kind', 'state'], async () =>
    (await partnerRequests()).counts.map((row) => [{ kind: row.kind, state: row.state }, row.count]),
  );
  readGauge(
    'issuer_partner_request_oldest_open_age_seconds',
    'Age of the oldest partner request that is not final (completed or rejected), by kind; absent when none is open',
    ['kind'],
    async () => (await partnerRequests()).oldestOpen.map((row) => [{ kind: row.kind }, row.ageSeconds]),
  );
  readGauge('issuer_redemptions', 'Redemptions (burns seen on chain) by state; needs_review waits for an operator', ['state'], async () =>
    (await countRedemptionsByState(db)).map((row) => [{ state: row.state }, row.count]),
  );
  readGauge('issuer_chain_transactions', "The issuer's own chain transactions by chain and state (signed: sent, not mined yet)", ['chain', 'state'], async () =>
    (await countChainTransactionsByState(db)).map((row) => [{ chain: row.chain, state: row.state }, row.count]),
  );
  const webhooks = perScrape(() => webhookGauges(db));
  readGauge('issuer_webhook_deliveries_pending', 'Webhook deliveries waiting for an attempt or their next one', [], async () => [[{}, (await webhooks()).pending]]);
  readGauge(
    'issuer_webhook_oldest_pending_age_seconds',
    'Age of the oldest pending webhook delivery; absent when none is pending',
    [],
    async () => {
      const age = (await webhooks()).oldestPendingAgeSeconds;
      return age === null ? [] : [[{}, age]];
    },
  );
  readGauge('issuer_webhook_endpoints', 'Webhook endpoints by state and, disabled, by whom (owner, failures: failing too long, gone: a 410)', ['state', 'disabled_by'], async () =>
    (await webhooks()).endpoints.map((row) => [{ state: row.state, disabled_by: row.disabledBy }, row.count]),
  );
  const outstanding = perScrape(() => outstandingAttestationTotals(db, clock()));
  readGauge('issuer_attestations_outstanding', 'Attestations counting against the limits now (outstanding or executing), by chain', ['chain'], async () =>
    (await outstanding()).map((row) => [{ chain: row.chain }, row.count]),
  );
  readGauge('issuer_attestations_outstanding_notional_usd', 'USD notional of the attestations counting against the limits now, by chain', ['chain'], async () =>
    (await outstanding()).map((row) => [{ chain: row.chain }, Number(row.notional)]),
  );

  const reserves = perScrape(() => latestReserveSnapshot(db));
  readGauge('issuer_reserves_coverage', 'Backing over the shares the tokens require, per underlying, in the last reserves computation (1 = exactly covered)', ['underlying'], async () =>
    ((await reserves())?.assets ?? []).map((asset) => [{ underlying: asset.underlying }, Number(asset.coverage)]),
  );
  readGauge('issuer_reserves_shortfall_shares', 'Shares missing behind the tokens, per underlying, in the last reserves computation (0 when covered)', ['underlying'], async () =>
    ((await reserves())?.assets ?? []).map((asset) => [{ underlying: asset.underlying }, Math.max(0, Number(asset.shortfall))]),
  );
  readGauge('issuer_reserves_age_seconds', 'Seconds since the last reserves computation; absent before the first', [], async () => {
    const taken = (await reserves())?.takenAt;
    return taken === undefined ? [] : [[{}, Math.max(0, (clock() - taken) / 1_000)]];
  });
  readGauge('issuer_reserves_paused', '1 per asset whose attestation minting is paused because its reserves are short', ['symbol'], async () =>
    (await listReservePauses(db)).map((pause) => [{ symbol: pause.symbol }, 1]),
  );
  readGauge('issuer_chain_paused', '1 per chain an operator paused (no attestation or soft quote on it; the watcher goes on), 0 per chain running', ['chain'], async () => {
    const paused = new Set((await listChainPauses(db)).map((pause) => pause.chain));
    return CHAINS.map((chain) => [{ chain }, paused.has(chain) ? 1 : 0]);
  });
  readGauge('issuer_hedge_orders', 'Hedge orders at the broker by state (pending: placed or waiting; review: refused for good)', ['state'], async () =>
    (await countHedgeOrdersByState(db)).map((row) => [{ state: row.state }, row.count]),
  );

  readGauge(
    'issuer_solana_nonce_accounts',
    "The Solana nonce pool's durable nonce accounts by state (free: ready for an attestation; held: by an outstanding attestation; advancing: its nonce being moved at expiry)",
    ['state'],
    async () => Object.entries(await countNonceAccounts(db)).map(([state, count]) => [{ state }, count]),
  );

  const cursors = perScrape(() => listWatcherCursors(db));
  const perChain = (name: string, help: string, value: (cursor: WatcherCursorSummary) => number | null | Promise<number | null | undefined>) =>
    readGauge(name, help, ['chain'], async () => {
      const rows = await Promise.all((await cursors()).map(async (cursor) => [{ chain: cursor.chain }, await value(cursor)] as const));
      return rows.filter((row): row is readonly [{ chain: string }, number] => typeof row[1] === 'number') as [{ chain: string }, number][];
    });
  perChain('issuer_chain_watcher_seen_head', 'The chain head the watcher last saw', (cursor) => cursor.seenHead);
  perChain('issuer_chain_watcher_final_block', 'The last final block the watcher acted on', (cursor) => cursor.finalBlock);
  perChain('issuer_chain_watcher_seconds_since_scan', 'Seconds since the watcher last recorded the head (grows while it is stopped)', (cursor) => cursor.secondsSinceScan);
  perChain('issuer_chain_watcher_halted', '1 while the watcher is halted waiting for an operator', (cursor) => (cursor.status === 'halted' ? 1 : 0));
  // Each chain's head, read once per scrape: undefined when the process reaches no such chain or it does not answer.
  const heads = perScrape(async () => {
    const entries = await Promise.all(
      (await cursors()).map(async (cursor) => {
        const context = chains?.()?.[cursor.chain as keyof ChainContexts];
        const solanaRpcUrl = cursor.chain === SOLANA_CHAIN ? parameters.solanaRpcUrl?.() : undefined;
        const read = context ? async () => Number(await context.client.getBlockNumber({ cacheTime: 0 })) : solanaRpcUrl ? confirmedSlotReader(solanaRpcUrl) : undefined;
        const head = read && (await withTimeout(read(), HEAD_TIMEOUT_MS));
        return [cursor.chain, head === undefined ? undefined : Number(head)] as const;
      }),
    );
    return new Map(entries);
  });
  perChain('issuer_chain_watcher_lag_blocks', "Blocks between the chain's head (its RPC, now) and the last block the watcher scanned", async (cursor) => {
    const head = (await heads()).get(cursor.chain);
    return head === undefined ? undefined : Math.max(0, head - (cursor.nextBlock - 1));
  });
  perChain(
    'issuer_chain_watcher_stalled',
    'While not halted: 1 when the watcher has recorded no scan for 60 s while its chain (its RPC, now) has blocks it has not scanned; absent when the chain does not answer',
    async (cursor) => {
      const head = (await heads()).get(cursor.chain);
      return head === undefined ? undefined : cursor.status === 'ok' && watcherStalled(cursor, head) ? 1 : 0;
    },
  );
  return registry;
}
