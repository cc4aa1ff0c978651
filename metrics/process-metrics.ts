/**
 * What a process's metrics read when scraped, in a registry of their own: Node's and the process's defaults
 * (prom-client: CPU, memory, handles, event-loop lag), the PostgreSQL pool's usage, and — read from the database every
 * role shares — partner requests and the age of the oldest one not final, redemptions by state, the issuer's chain
 * transactions by state, outstanding attestations and their notional, each chain watcher's seen and final heads, how
 * long since it last scanned, whether it is halted, and with the chains' RPC its lag behind the head. A reading that
 * fails (the database down) leaves those series out of that scrape and counts in `issuer_metrics_read_errors_total`.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { ChainContexts } from '../chains/context';
import type { Database } from '../db/pool';
import { outstandingAttestationTotals } from '../db/queries/attestations';
import { countChainTransactionsByState } from '../db/queries/chain-transactions';
import { listWatcherCursors } from '../db/queries/chain-watcher';
import { partnerRequestGauges } from '../db/queries/partner-requests';
import { countRedemptionsByState } from '../db/queries/redemptions';

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
  clock?: () => number;
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
  const registers = [new Registry()];
  const registry = registers[0]!;
  collectDefaultMetrics({ register: registry });

  const readErrors = new Counter({ name: 'issuer_metrics_read_errors_total', help: 'Scrapes whose database readings failed', registers });
  /** Runs a gauge's reading; a failure is counted and leaves the gauge empty for this scrape. */
  const reading = (gauge: Gauge, read: () => Promise<void>) => async () => {
    gauge.reset();
    try {
      await read();
    } catch {
      readErrors.inc();
      gauge.reset();
    }
  };

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

  const partnerRequests: Gauge = new Gauge({
    name: 'issuer_partner_requests',
    help: 'Partner (brokerage) mint and redeem requests by kind and state',
    labelNames: ['kind', 'state'],
    registers,
    collect: () =>
      reading(partnerRequests, async () => {
        const { counts, oldestOpen } = await partnerRequestGauges(db);
        for (const row of counts) partnerRequests.set({ kind: row.kind, state: row.state }, row.count);
        oldestOpenRequest.reset();
        for (const row of oldestOpen) oldestOpenRequest.set({ kind: row.kind }, row.ageSeconds);
      })(),
  });
  const oldestOpenRequest = new Gauge({
    name: 'issuer_partner_request_oldest_open_age_seconds',
    help: 'Age of the oldest partner request that is not final (completed or rejected), by kind; absent when none is open',
    labelNames: ['kind'],
    registers,
  });
  const redemptions: Gauge = new Gauge({
    name: 'issuer_redemptions',
    help: 'Redemptions (burns seen on chain) by state; needs_review waits for an operator',
    labelNames: ['state'],
    registers,
    collect: () =>
      reading(redemptions, async () => {
        for (const row of await countRedemptionsByState(db)) redemptions.set({ state: row.state }, row.count);
      })(),
  });
  const transactions: Gauge = new Gauge({
    name: 'issuer_chain_transactions',
    help: "The issuer's own chain transactions by chain and state (signed: sent, not mined yet)",
    labelNames: ['chain', 'state'],
    registers,
    collect: () =>
      reading(transactions, async () => {
        for (const row of await countChainTransactionsByState(db)) transactions.set({ chain: row.chain, state: row.state }, row.count);
      })(),
  });
  const outstanding: Gauge = new Gauge({
    name: 'issuer_attestations_outstanding',
    help: 'Attestations counting against the limits now (outstanding or executing), by chain',
    labelNames: ['chain'],
    registers,
    collect: () =>
      reading(outstanding, async () => {
        outstandingNotional.reset();
        for (const row of await outstandingAttestationTotals(db, clock())) {
          outstanding.set({ chain: row.chain }, row.count);
          outstandingNotional.set({ chain: row.chain }, Number(row.notional));
        }
      })(),
  });
  const outstandingNotional = new Gauge({
    name: 'issuer_attestations_outstanding_notional_usd',
    help: 'USD notional of the attestations counting against the limits now, by chain',
    labelNames: ['chain'],
    registers,
  });

  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['chain'], registers });
  const seenHead = gauge('issuer_chain_watcher_seen_head', 'The chain head the watcher last saw');
  const finalHead = gauge('issuer_chain_watcher_final_block', 'The last final block the watcher acted on');
  const sinceScan = gauge('issuer_chain_watcher_seconds_since_scan', 'Seconds since the watcher last recorded the head (grows while it is stopped)');
  const halted = gauge('issuer_chain_watcher_halted', '1 while the watcher is halted waiting for an operator');
  const lag = gauge('issuer_chain_watcher_lag_blocks', "Blocks between the chain's head (its RPC, now) and the last block the watcher scanned");
  new Gauge({
    name: 'issuer_chain_watcher_cursors',
    help: 'Chains with a watcher cursor (read with the other watcher series)',
    registers,
    async collect() {
      for (const each of [seenHead, finalHead, sinceScan, halted, lag]) each.reset();
      try {
        const cursors = await listWatcherCursors(db);
        this.set(cursors.length);
        await Promise.all(
          cursors.map(async (cursor) => {
            const labels = { chain: cursor.chain };
            if (cursor.seenHead !== null) seenHead.set(labels, cursor.seenHead);
            if (cursor.finalBlock !== null) finalHead.set(labels, cursor.finalBlock);
            if (cursor.secondsSinceScan !== null) sinceScan.set(labels, cursor.secondsSinceScan);
            halted.set(labels, cursor.status === 'halted' ? 1 : 0);
            const context = chains?.()?.[cursor.chain as keyof ChainContexts];
            const head = context && (await withTimeout(context.client.getBlockNumber({ cacheTime: 0 }), HEAD_TIMEOUT_MS));
            if (head !== undefined) lag.set(labels, Math.max(0, Number(head) - (cursor.nextBlock - 1)));
          }),
        );
      } catch {
        readErrors.inc();
      }
    },
  });
  return registry;
}
