/**
 * `/console` — the overview: market (the operator's pause, and the market status clients read), paused chains and asset statuses; attestations outstanding, executing and executed today;
 * partner requests by state, with those needing a person first (in review, held by a pause, waiting too long for the
 * broker's confirm, rejected today); the chain watchers; the broker's reachability.
 */
import type { ReadinessProbe } from '../../api/health/readiness';
import type { Database } from '../../db/pool';
import { overviewCounts, requestsNeedingAttention } from '../../db/queries/console';
import { getMarketState, listCurrentAssetEvents } from '../../db/queries/operator-controls';
import { listChainPauses } from '../../db/queries/chain-pauses';
import { marketStatus } from '../../domain/market-status';
import type { BrokerConnection } from '../../partner/broker-client';
import { badge, enc, html, table, time, type Html } from '../html';
import { watchersWithHealth, watcherTable } from './business';

/** A request waiting this long for the broker's confirm is shown as needing a person. */
const CONFIRM_WAIT_MS = 10 * 60_000;

async function brokerReachability(broker: BrokerConnection | undefined): Promise<Html> {
  if (!broker) return html`<span class="muted">no broker configured</span>`;
  const startedAt = performance.now();
  try {
    // Any answer short of a server error is a broker that is there.
    const answer = await fetch(broker.url, { signal: AbortSignal.timeout(2_000) });
    return html`${badge(answer.status < 500 ? 'up' : 'down')} ${broker.url} answered ${answer.status} in ${Math.round(performance.now() - startedAt)} ms`;
  } catch (error) {
    return html`${badge('down')} ${broker.url}: ${(error as Error).message}`;
  }
}

export async function overviewPage(parameters: { db: Database; broker?: BrokerConnection; now: number; probes?: Record<string, ReadinessProbe> }): Promise<Html> {
  const { db, now } = parameters;
  const [market, chainPauses, events, counts, attention, watchers, broker] = await Promise.all([
    getMarketState(db),
    listChainPauses(db),
    listCurrentAssetEvents(db, now),
    overviewCounts(db, now),
    requestsNeedingAttention(db, { now, confirmWaitMs: CONFIRM_WAIT_MS, limit: 50 }),
    watchersWithHealth(db, parameters.probes),
    brokerReachability(parameters.broker),
  ]);
  // What GET /v1/status/market answers now: the calendar's session or pause, and the operator's pause over it.
  const status = marketStatus(now, market);
  const card = (n: number, label: string, link?: string) =>
    link ? html`<a class="card" href="${link}"><div class="n">${n}</div><div class="l">${label}</div></a>` : html`<div class="card"><div class="n">${n}</div><div class="l">${label}</div></div>`;
  return html`
<div id="overview" data-live>
<h2>Market</h2>
<p>${badge(market.paused ? 'paused' : 'open for orders')} ${market.reason ?? ''} <span class="muted">since ${time(market.updatedAt)}</span> — <a href="/console/controls">controls</a></p>
<p id="market-status">Clients read ${badge(status.marketStatus)} ${status.reason?.message ?? ''} — next ${status.nextOpenSession} ${time(status.nextOpen)}; off-hours window ${
  status.offhours.isOpen ? html`open until ${time(status.offhours.nextClose)}` : html`closed, opens ${time(status.offhours.nextOpen)}`
}</p>
${chainPauses.map((pause) => html`<p>${badge('paused')} chain ${pause.chain}: ${pause.reason} <span class="muted">since ${time(pause.pausedAt)}</span></p>`)}
${table(
  ['Asset', 'Status', 'Kind', 'Reason', 'From', 'Until'],
  events.map((event) => [html`${event.symbol}`, badge(event.code), html`${event.type}`, html`${event.reason}`, time(event.startsAt), time(event.endsAt)]),
  'Every asset trades normally.',
)}
<h2>Attestations</h2>
<div class="cards">${card(counts.attestations.outstanding, 'outstanding')}${card(counts.attestations.executing, 'executing (seen, not final)')}${card(counts.attestations.executedToday, 'executed today (UTC)')}</div>
<h2>Partner requests</h2>
<div class="cards">${counts.partnerStates.map((row) => card(row.n, `${row.kind} ${row.state}`, `/console/partner-requests?type=${row.kind}&status=${row.state}`))}${card(counts.rejectedToday, 'rejected today')}</div>
<h2>Needing a person</h2>
${table(
  ['Request', 'Type', 'State', 'Why', 'Reason', 'Since'],
  attention.map((request) => [html`<a href="/console/partner-requests/${enc(request.issuerRequestId)}">${request.issuerRequestId}</a>`, html`${request.kind}`, badge(request.state), html`${request.why}`, html`${request.reason ?? ''}`, time(request.updatedAt)]),
  'Nothing is waiting for a person.',
)}
<h2>Chain watchers</h2>${watcherTable(watchers)}
<h2>Broker</h2><p>${broker}</p>
</div>`;
}
