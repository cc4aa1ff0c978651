/**
 * The business pages, each linking to its workflows: the partner-request queue and a request reachable by any of its
 * ids (the issuer's record, the broker's record fetched live, the workflow's steps, the mint or burn transaction),
 * redemptions, an attestation (fields, state, the account's limit usage, its executions), and the chains (watchers,
 * deployments, the issuer's transactions with nonce and state, registered wallets).
 */
import type { Client } from '@temporalio/client';
import type { Database } from '../../db/pool';
import { attestationLimitUsage, attestationRow, chainDeploymentRows, chainTransactionRows, chainWatchers, redemptionRows, walletRows, type WatcherRow } from '../../db/queries/console';
import { probeDependency, type DependencyState, type ReadinessProbe } from '../../api/health/readiness';
import { listPartnerRequests, type PartnerRequestRecord } from '../../db/queries/partner-requests';
import { PARTNER_REQUEST_STATES } from '../../api/v1/tokenization/schemas';
import { partnerWorkflowId } from '../../api/v1/tokenization/workflow-state';
import { BrokerClient, type BrokerConnection } from '../../partner/broker-client';
import { inspectWorkflow, queryWorkflowState } from '../../inspection/workflows';
import { historySteps } from '../../inspection/steps';
import { badge, enc, fields, href, html, jsonBlock, jsonInline, table, time, type Html } from '../html';
import { partnerRequestActions } from './workflow-actions';
import { QUERY_TIMEOUT_MS, stepsTable } from './workflows';

export const QUEUE_PAGE_SIZE = 50;

const requestLink = (id: string) => html`<a href="/console/partner-requests/${enc(id)}">${id}</a>`;

export async function partnerQueuePage(db: Database, query: { status?: string; type?: string; cursor?: string }): Promise<Html> {
  const status = (PARTNER_REQUEST_STATES as readonly string[]).includes(query.status ?? '') ? query.status : undefined;
  const kind = query.type === 'mint' || query.type === 'redeem' ? query.type : undefined;
  const rows = await listPartnerRequests(db, { status, kind, after: query.cursor || undefined, limit: QUEUE_PAGE_SIZE + 1 });
  const page = rows.slice(0, QUEUE_PAGE_SIZE);
  return html`
<form class="filters" method="get" action="/console/partner-requests">
  <label>Status<select name="status"><option value="">any</option>${PARTNER_REQUEST_STATES.map((state) => html`<option ${state === status ? 'selected' : ''}>${state}</option>`)}</select></label>
  <label>Type<select name="type"><option value="">any</option><option ${kind === 'mint' ? 'selected' : ''}>mint</option><option ${kind === 'redeem' ? 'selected' : ''}>redeem</option></select></label>
  <button>Filter</button>
</form>
${table(
  ['Request', 'Type', 'State', 'Underlying', 'Qty', 'Client', 'Chain', 'Updated', 'Reason'],
  page.map((request) => [
    requestLink(request.issuerRequestId),
    html`${request.kind}`,
    badge(request.state),
    html`${request.underlyingSymbol}`,
    html`${request.qty ?? '—'}`,
    html`${request.clientId ?? '—'}`,
    html`${request.chain}`,
    time(request.updatedAt),
    html`${request.reason ?? ''}`,
  ]),
  'No request matches.',
)}
<div class="pager">${rows.length > QUEUE_PAGE_SIZE ? html`<a rel="next" href="${href('/console/partner-requests', { status, type: kind, cursor: page.at(-1)!.issuerRequestId })}">Next page</a>` : html`<span class="muted">Last page</span>`}</div>`;
}

async function brokerRecord(broker: BrokerConnection | undefined, request: PartnerRequestRecord): Promise<Html> {
  if (!broker) return html`<p class="muted">No broker is configured for this process.</p>`;
  try {
    const record = await new BrokerClient({ ...broker, timeoutMs: 3_000 }).findByIssuerRequestId(request.issuerRequestId, request.kind);
    return record ? jsonBlock(record) : html`<p class="muted">The broker has no record of this request.</p>`;
  } catch (error) {
    return html`<p class="notice notice-error">The broker did not answer: ${(error as Error).message}</p>`;
  }
}

export async function partnerRequestPage(
  parameters: { db: Database; temporal?: Client; broker?: BrokerConnection; csrf: string },
  request: PartnerRequestRecord,
): Promise<{ body: Html; live: boolean }> {
  const workflowId = partnerWorkflowId(request);
  const [broker, workflow, transactions] = await Promise.all([
    brokerRecord(parameters.broker, request),
    parameters.temporal
      ? inspectWorkflow(parameters.temporal, workflowId).then(
          async (inspected) => ({ inspected, state: await queryWorkflowState(parameters.temporal!, workflowId, { timeoutMs: QUERY_TIMEOUT_MS }).catch(() => undefined) }),
          (error: unknown) => ({ error: (error as Error).message }),
        )
      : Promise.resolve({ error: 'No workflow service is configured for this process.' }),
    chainTransactionRows(parameters.db, { keyPrefix: `${workflowId}:`, limit: 20, offset: 0 }),
  ]);
  const pending = !['completed', 'rejected', 'cancelled'].includes(request.state);
  const state = 'inspected' in workflow ? (workflow.state?.state as { step?: string } | undefined) : undefined;
  const body = html`
<div id="request" data-live>
<div class="two"><div><h2>Issuer record</h2>${fields([
    ['Issuer request id', request.issuerRequestId],
    ['Type', request.kind],
    ['State', badge(request.state)],
    ['Workflow', html`<a href="/console/workflows/${enc(workflowId)}">${workflowId}</a>${state?.step ? html` — step ${badge(state.step)}` : ''}`],
    ['Broker tokenization request id', request.tokenizationRequestId],
    ['Client', request.clientId],
    ['Chain', request.chain],
    ['Underlying / token', `${request.underlyingSymbol} / ${request.tokenSymbol}`],
    ['Wallet', request.wallet],
    ['Qty (shares)', request.qty],
    ['Token amount (base units)', request.tokenAmount],
    ['Shares multiplier', request.sharesMultiplier],
    ['Share dust', request.shareDust],
    ['Notional (USD)', request.notionalUsd],
    ['Broker confirm', request.confirmStatus],
    [request.kind === 'mint' ? 'Mint tx' : 'Burn tx', request.txHash ? html`<a href="${href('/console/chains', { tx: request.txHash })}">${request.txHash}</a>` : undefined],
    ['Reason', request.reason],
    ['Created', time(request.createdAt)],
    ['Updated', time(request.updatedAt)],
  ])}</div>
<div><h2>Broker record <span class="muted">(fetched live)</span></h2>${broker}
<h2>Issuer transactions</h2>${table(
    ['Key', 'Nonce', 'Tx hash', 'State', 'Block'],
    transactions.map((tx) => [html`${String(tx.key)}`, html`${String(tx.nonce)}`, html`<code>${String(tx.tx_hash)}</code>`, badge(String(tx.state)), html`${String(tx.block_number ?? '—')}`]),
    request.kind === 'redeem' ? 'A redemption signs no transaction of the issuer (the burn is the wallet’s).' : 'None yet.',
  )}</div></div>
${pending && 'inspected' in workflow && workflow.inspected.description.status === 'RUNNING' ? html`<div class="actions"><h2>Actions</h2>${partnerRequestActions(request.issuerRequestId, parameters.csrf, { needsClient: request.state === 'needs_review' && request.clientId === null })}</div>` : ''}
<h2>Steps</h2>
${'inspected' in workflow ? stepsTable(historySteps(workflow.inspected.timeline)) : html`<p class="muted">${workflow.error}</p>`}
</div>`;
  return { body, live: pending };
}

export async function redemptionsPage(db: Database, page: number): Promise<Html> {
  const rows = await redemptionRows(db, { limit: QUEUE_PAGE_SIZE + 1, offset: (page - 1) * QUEUE_PAGE_SIZE });
  return html`${table(
    ['Redemption', 'Chain', 'Wallet', 'Symbol', 'Amount (base units)', 'State', 'Client', 'Qty', 'Block', 'Seen'],
    rows.slice(0, QUEUE_PAGE_SIZE).map((row) => [
      requestLink(String(row.redemption_id)),
      html`${String(row.chain)}`,
      html`<code>${String(row.wallet)}</code>`,
      html`${String(row.symbol ?? '—')}`,
      html`${String(row.amount)}`,
      badge(String(row.partner_state ?? row.state)),
      html`${String(row.client_id ?? '—')}`,
      html`${String(row.qty ?? '—')}`,
      html`${String(row.block_number)}`,
      time(String(row.created_at)),
    ]),
    'No redemption yet.',
  )}
<div class="pager">${page > 1 ? html`<a href="${href('/console/redemptions', { page: page - 1 })}">Previous</a>` : ''}${rows.length > QUEUE_PAGE_SIZE ? html`<a rel="next" href="${href('/console/redemptions', { page: page + 1 })}">Next page</a>` : ''}</div>`;
}

export async function attestationPage(parameters: { db: Database; temporal?: Client; now: number }, attestationId: string): Promise<Html | undefined> {
  const found = await attestationRow(parameters.db, attestationId);
  if (!found) return undefined;
  const { attestation, executions } = found;
  const workflowId = `attestation-${attestationId}`;
  const [usage, state] = await Promise.all([
    attestationLimitUsage(parameters.db, attestation as { account_id: string; symbol: string; session: string; session_started_at: number }, parameters.now),
    parameters.temporal ? queryWorkflowState(parameters.temporal, workflowId, { timeoutMs: QUERY_TIMEOUT_MS }).catch(() => undefined) : Promise.resolve(undefined),
  ]);
  return html`
<div class="two"><div><h2>Attestation</h2>${fields([
    ['State', badge(String(attestation.state))],
    ['Workflow', html`<a href="/console/workflows/${enc(workflowId)}">${workflowId}</a>`],
    ['Account', String(attestation.account_id)],
    ['Symbol', String(attestation.symbol)],
    ['Side', String(attestation.side)],
    ['Chain', String(attestation.chain)],
    ['Token amount', String(attestation.token_amount)],
    ['Price', String(attestation.price)],
    ['Notional', String(attestation.notional)],
    ['Session', String(attestation.session)],
    ['Created', time(Number(attestation.created_at))],
    ['Expires', time(Number(attestation.expires_at))],
    ['Execution tx', attestation.execution_tx_hash ? html`<a href="${href('/console/chains', { tx: String(attestation.execution_tx_hash) })}">${String(attestation.execution_tx_hash)}</a>` : undefined],
    ['State changed', attestation.state_changed_at ? time(Number(attestation.state_changed_at)) : undefined],
  ])}</div>
<div><h2>The account's limit usage (${String(attestation.symbol)}, ${String(attestation.session)})</h2>${jsonBlock(usage)}
<h2>Workflow state</h2>${state ? jsonBlock(state.state) : html`<p class="muted">Not answered (the workflow has closed or the service is away).</p>`}</div></div>
<h2>Executions seen on chain</h2>${table(
    ['Chain', 'Tx hash', 'Block', 'Status', 'Quantity', 'Price'],
    executions.map((row) => [html`${String(row.chain)}`, html`<code>${String(row.tx_hash)}</code>`, html`${String(row.block_number)}`, badge(String(row.status)), html`${String(row.quantity)}`, html`${String(row.price)}`]),
    'None.',
  )}
<h2>Every stored field</h2>${jsonBlock(attestation)}`;
}

export async function chainsPage(db: Database, query: { tx?: string; page: number }, probes?: Record<string, ReadinessProbe>): Promise<Html> {
  const [watchers, deployments, transactions, wallets] = await Promise.all([
    watchersWithHealth(db, probes),
    chainDeploymentRows(db),
    chainTransactionRows(db, { txHash: query.tx || undefined, limit: QUEUE_PAGE_SIZE + 1, offset: (query.page - 1) * QUEUE_PAGE_SIZE }),
    walletRows(db, 200),
  ]);
  return html`
<h2>Watchers</h2>${watcherTable(watchers)}
<h2>Deployments</h2>${table(
    ['Chain', 'Id', 'Token manager', 'Issuer', 'Registry', 'Stablecoin', 'Block'],
    deployments.map((row) => [html`${String(row.chain)}`, html`${String(row.chain_id)}`, html`<code>${String(row.token_manager)}</code>`, html`<code>${String(row.issuer)}</code>`, html`<code>${String(row.registry)}</code>`, html`<code>${String(row.stablecoin)}</code>`, html`${String(row.deployed_block)}`]),
  )}
<h2>The issuer's transactions${query.tx ? html` — ${query.tx}` : ''}</h2>
<form class="filters" method="get" action="/console/chains"><label>Tx hash<input name="tx" value="${query.tx ?? ''}"></label><button>Find</button></form>
${table(
    ['Key', 'Chain', 'Sender', 'Nonce', 'Tx hash', 'State', 'Block', 'Created'],
    transactions.slice(0, QUEUE_PAGE_SIZE).map((tx) => {
      const workflowId = String(tx.key).split(':')[0]!;
      return [
        html`<a href="/console/workflows/${enc(workflowId)}">${String(tx.key)}</a>`,
        html`${String(tx.chain)}`,
        html`<code>${String(tx.sender)}</code>`,
        html`${String(tx.nonce)}`,
        html`<code>${String(tx.tx_hash)}</code>`,
        badge(String(tx.state)),
        html`${String(tx.block_number ?? '—')}`,
        time(String(tx.created_at)),
      ];
    }),
    'No transaction.',
  )}
<div class="pager">${query.page > 1 ? html`<a href="${href('/console/chains', { tx: query.tx, page: query.page - 1 })}">Previous</a>` : ''}${transactions.length > QUEUE_PAGE_SIZE ? html`<a rel="next" href="${href('/console/chains', { tx: query.tx, page: query.page + 1 })}">Next page</a>` : ''}</div>
<h2>Registered wallets</h2>${table(
    ['Chain', 'Address', 'Account', 'State', 'Partner flow', 'Tx', 'Error', 'Updated'],
    wallets.map((row) => [html`${String(row.chain)}`, html`<code>${String(row.address)}</code>`, html`${String(row.account_id)}`, badge(String(row.state)), html`${row.partner_enabled ? 'enabled' : '—'}`, html`<code>${String(row.tx_hash ?? '')}</code>`, html`${String(row.error ?? '')}`, time(String(row.updated_at))]),
    'No wallet.',
  )}`;
}

/** A chain's watcher with its `/ready` check (`watcher <chain>`: down while halted or stalled), run now. */
export type WatcherWithHealth = WatcherRow & { health: DependencyState };

/** The watchers, each judged by its readiness probe, as `/ready` judges it (domain/watcher-stall.ts). */
export async function watchersWithHealth(db: Database, probes: Record<string, ReadinessProbe> | undefined): Promise<WatcherWithHealth[]> {
  const watchers = await chainWatchers(db);
  return Promise.all(watchers.map(async (watcher) => ({ ...watcher, health: await probeDependency(probes?.[`watcher ${watcher.chain}`]) })));
}

export function watcherTable(watchers: WatcherWithHealth[]): Html {
  return table(
    ['Chain', 'Watcher', 'Ready', 'Status', 'Head seen', 'Cursor (next block)', 'Final block', 'Lag (blocks)', 'Lag (seconds)', 'Last error'],
    watchers.map((watcher) => {
      const lagBlocks = watcher.seenHead !== null && watcher.nextBlock !== null ? Math.max(0, watcher.seenHead + 1 - watcher.nextBlock) : null;
      const lagSeconds = watcher.seenHeadAt ? Math.round((Date.now() - new Date(watcher.seenHeadAt).getTime()) / 1000) : null;
      return [
        html`${watcher.chain}`,
        html`<a href="/console/workflows/${watcher.workflowId}">${watcher.workflowId}</a>`,
        watcher.health.status === 'down' ? html`${badge('down')} ${watcher.health.error}` : badge(watcher.health.status),
        badge(watcher.status ?? 'not started'),
        html`${watcher.seenHead ?? '—'}`,
        html`${watcher.nextBlock ?? '—'}`,
        html`${watcher.finalBlock ?? '—'}`,
        html`${lagBlocks ?? '—'}`,
        html`${lagSeconds === null ? '—' : `${lagSeconds} s since the head was seen`}`,
        watcher.lastError ? html`${jsonInline(watcher.lastError)} ${time(watcher.lastErrorAt)}` : html`<span class="muted">—</span>`,
      ];
    }),
    'No chain is deployed.',
  );
}
