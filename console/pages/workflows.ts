/**
 * `/console/workflows` — the list (filters: type, status, id prefix, started after; counts per status; pages read
 * from the service one at a time) — and `/console/workflows/<id>` — status and timing, decoded input and result or
 * failure, the workflow's own state query, pending activities and timers, links to parent, children and runs, the
 * history as steps, a timeline or raw events (paged), live while the workflow runs, and its actions.
 */
import type { Client } from '@temporalio/client';
import { countWorkflowsByStatus, inspectWorkflow, listWorkflowPage, queryWorkflowState, WORKFLOW_STATUSES, type ListWorkflowsParameters, type TimelineEntry } from '../../inspection/workflows';
import { historySteps, type Step } from '../../inspection/steps';
import { humanDuration } from '../../inspection/timeline-format';
import { actionForm, badge, enc, fields, href, html, jsonBlock, jsonInline, table, time, type Html } from '../html';
import { workflowActions } from './workflow-actions';

export interface WorkflowListQuery {
  type?: string;
  status?: (typeof WORKFLOW_STATUSES)[number];
  prefix?: string;
  /** Epoch ms. */
  after?: number;
  page?: string;
}

function filtersOf(query: WorkflowListQuery): ListWorkflowsParameters {
  return {
    type: query.type,
    status: query.status,
    idPrefix: query.prefix,
    startedAfter: query.after === undefined ? undefined : new Date(query.after),
  };
}

export const PAGE_SIZE = 50;

export async function workflowListPage(client: Client, query: WorkflowListQuery): Promise<Html> {
  const filters = filtersOf(query);
  const [page, counts] = await Promise.all([listWorkflowPage(client, { ...filters, pageSize: PAGE_SIZE, pageToken: query.page }), countWorkflowsByStatus(client, filters)]);
  const after = query.after === undefined ? undefined : new Date(query.after).toISOString();
  const base = { type: query.type, prefix: query.prefix, after };
  const rows = page.workflows.map((workflow) => [
    html`<a href="/console/workflows/${enc(workflow.workflowId)}">${workflow.workflowId}</a>`,
    html`${workflow.type}`,
    badge(workflow.status),
    time(workflow.startTime),
    time(workflow.closeTime),
    html`${workflow.historyLength}`,
  ]);
  return html`
<form class="filters" method="get" action="/console/workflows">
  <label>Type<input name="type" value="${query.type ?? ''}" placeholder="partnerMintWorkflow"></label>
  <label>Status<select name="status"><option value="">any</option>${WORKFLOW_STATUSES.map((status) => html`<option ${filters.status === status ? 'selected' : ''}>${status}</option>`)}</select></label>
  <label>Id prefix<input name="prefix" value="${query.prefix ?? ''}" placeholder="partner-mint-"></label>
  <label>Started after<input name="after" value="${after ?? ''}" placeholder="2025-01-31T00:00:00Z"></label>
  <button>Filter</button>
</form>
<div class="cards">${WORKFLOW_STATUSES.map(
    (status) => html`<a class="card" href="${href('/console/workflows', { ...base, status })}"><div class="n">${counts[status] ?? 0}</div><div class="l">${status}</div></a>`,
  )}</div>
<h2>${filters.status ?? 'All'} workflows</h2>
${table(['Workflow id', 'Type', 'Status', 'Started', 'Closed', 'Events'], rows, 'No workflow matches.')}
<div class="pager">${query.page ? html`<a href="${href('/console/workflows', { ...base, status: filters.status })}">First page</a>` : ''}
${page.nextPageToken ? html`<a rel="next" href="${href('/console/workflows', { ...base, status: filters.status, page: page.nextPageToken })}">Next page</a>` : html`<span class="muted">Last page</span>`}</div>`;
}

export const HISTORY_PAGE_SIZE = 200;

/** How long a page waits for a worker to answer the workflow's state query. */
export const QUERY_TIMEOUT_MS = 2_000;

const stepDuration = (step: Step) => (step.end === null ? 'open' : step.durationMs ? humanDuration(step.durationMs) : '');

export function stepsTable(steps: readonly Step[]): Html {
  return table(
    ['Start', 'Duration', 'Step', 'Outcome', 'Payloads'],
    steps.map((step) => [
      time(step.start),
      html`${stepDuration(step)}`,
      html`<b>${step.kind}</b> ${step.name}${step.kind === 'child' && step.ref ? html` <a href="/console/workflows/${enc(step.ref)}">${step.ref}</a>` : ''}`,
      html`${badge(step.outcome || step.kind)}${step.attempt && step.attempt > 1 ? html` attempt ${step.attempt}` : ''}`,
      html`${step.input !== undefined ? html`<div>in ${jsonInline(step.input)}</div>` : ''}${step.result !== undefined ? html`<div>out ${jsonInline(step.result)}</div>` : ''}${step.failure ? html`<div class="why">why <code>${step.failure}</code></div>` : ''}`,
    ]),
    'No steps yet.',
  );
}

function timelineView(steps: readonly Step[]): Html {
  const starts = steps.map((step) => (step.start ? Date.parse(step.start) : NaN)).filter(Number.isFinite);
  const first = Math.min(...starts);
  const last = Math.max(...steps.map((step) => (step.end ? Date.parse(step.end) : Date.now())));
  const span = Math.max(1, last - first);
  return html`<div class="timeline"><p class="muted">${new Date(first).toISOString()} → ${new Date(last).toISOString()} (${humanDuration(span)})</p>
${steps.map((step) => {
  const start = step.start ? Date.parse(step.start) : first;
  const end = step.end ? Date.parse(step.end) : last;
  const left = ((start - first) / span) * 100;
  const width = Math.max(0.2, ((end - start) / span) * 100);
  // SVG geometry, not inline styles: the console's content security policy allows none.
  return html`<div class="tl-row"><span>${step.kind} ${step.name}</span><svg class="tl-track" viewBox="0 0 1000 14" preserveAspectRatio="none"><rect class="tl-bar ${step.end === null ? 'open' : step.outcome.replace(/ /g, '-')}" x="${(left * 10).toFixed(2)}" y="1" width="${(width * 10).toFixed(2)}" height="12"><title>${step.outcome} ${stepDuration(step)}</title></rect></svg></div>`;
})}</div>`;
}

function rawView(entries: readonly TimelineEntry[]): Html {
  return table(
    ['#', 'Time', 'Type', 'Attributes'],
    entries.map((entry) => [html`${entry.eventId}`, time(entry.time), html`${entry.type}`, jsonBlock(entry.details)]),
  );
}

function paged<T>(items: readonly T[], page: number): { items: readonly T[]; pages: number; page: number } {
  const pages = Math.max(1, Math.ceil(items.length / HISTORY_PAGE_SIZE));
  const current = Math.min(Math.max(1, page), pages);
  return { items: items.slice((current - 1) * HISTORY_PAGE_SIZE, current * HISTORY_PAGE_SIZE), pages, page: current };
}

function pager(path: string, view: string, page: number, pages: number): Html {
  if (pages <= 1) return html``;
  return html`<div class="pager">${page > 1 ? html`<a href="${href(path, { view, page: page - 1 })}">Previous</a>` : ''} <span>page ${page} of ${pages}</span>
${page < pages ? html`<a rel="next" href="${href(path, { view, page: page + 1 })}">Next</a>` : ''}</div>`;
}

export interface WorkflowPageOptions {
  view?: string;
  page?: number;
  csrf: string;
}

/** The workflow page's body; `live` when the workflow is still running. */
export async function workflowPage(client: Client, workflowId: string, options: WorkflowPageOptions): Promise<{ body: Html; live: boolean; type: string }> {
  // The state query runs beside the history's fetch (it waits for a worker; bounded).
  const asked = queryWorkflowState(client, workflowId, { timeoutMs: QUERY_TIMEOUT_MS }).catch((error: unknown) => ({ query: 'state', state: `not answered: ${(error as Error).message}` }));
  const { description, timeline, parent } = await inspectWorkflow(client, workflowId);
  const running = description.status === 'RUNNING';
  const state = await asked;
  const steps = historySteps(timeline);
  const started = steps.find((step) => step.kind === 'workflow' && step.name === 'started');
  const closing = [...steps].reverse().find((step) => step.kind === 'workflow' && step.name !== 'started');
  const children = steps.filter((step) => step.kind === 'child' && step.ref);
  const continuedFrom = timeline[0]?.details.continuedExecutionRunId;
  const path = `/console/workflows/${enc(workflowId)}`;
  const view = ['steps', 'timeline', 'raw'].includes(options.view ?? '') ? options.view! : 'steps';
  let history: Html;
  if (view === 'raw') {
    const { items, pages, page } = paged(timeline, options.page ?? 1);
    history = html`${pager(path, view, page, pages)}${rawView(items)}${pager(path, view, page, pages)}`;
  } else {
    const { items, pages, page } = paged(steps, options.page ?? 1);
    history = html`${pager(path, view, page, pages)}${view === 'timeline' ? timelineView(items) : stepsTable(items)}${pager(path, view, page, pages)}`;
  }
  const body = html`
<div id="summary" data-live>
${fields([
  ['Status', badge(description.status)],
  ['Type', description.type],
  ['Run', description.runId],
  ['Task queue', description.taskQueue],
  ['Started', time(description.startTime)],
  ['Closed', time(description.closeTime)],
  ['Events', String(description.historyLength)],
  ['Parent', parent ? html`<a href="/console/workflows/${enc(parent.workflowId)}">${parent.workflowId}</a>` : undefined],
  ['Continued from run', typeof continuedFrom === 'string' ? continuedFrom : undefined],
  ['Children', children.length ? html`${children.map((child) => html`<a href="/console/workflows/${enc(child.ref!)}">${child.ref}</a> `)}` : undefined],
])}
<div class="two"><div><h2>Input</h2>${jsonBlock(started?.input)}</div>
<div><h2>${closing ? `Outcome: ${closing.name}` : 'Result'}</h2>${closing?.failure ? html`<pre class="json">${closing.failure}</pre>` : jsonBlock(closing?.result)}</div></div>
<h2>State${state ? html` <span class="muted">(${state.query} query)</span>` : ''}</h2>
${state ? jsonBlock(state.state) : html`<p class="muted">The workflow defines no state query.</p>`}
<h2>Pending activities</h2>
${table(
  ['Activity', 'State', 'Attempt', 'Last failure', 'Scheduled', 'Last started', 'Next retry'],
  description.pendingActivities.map((activity) => [
    html`${activity.activityType} #${activity.activityId}`,
    badge(activity.state),
    html`${activity.attempt}${activity.maximumAttempts ? ` of ${activity.maximumAttempts}` : ''}`,
    activity.lastFailure ? html`<code>${activity.lastFailure.type ? `${activity.lastFailure.type}: ` : ''}${activity.lastFailure.message}</code>` : html`<span class="muted">—</span>`,
    time(activity.scheduledTime),
    time(activity.lastStartedTime),
    activity.state === 'SCHEDULED' && activity.attempt > 1 ? time(activity.scheduledTime) : html`<span class="muted">—</span>`,
  ]),
  'None.',
)}
${description.pendingTimers.length ? html`<h2>Pending timers</h2>${table(['Timer', 'Fires at'], description.pendingTimers.map((timer) => [html`${timer.timerId}`, time(timer.firesAt)]))}` : ''}
</div>
${running ? html`<div class="actions"><h2>Actions</h2>${workflowActions({ workflowId, type: description.type, csrf: options.csrf, state: state?.state })}</div>` : ''}
<h2>History</h2>
<div class="tabs">${['steps', 'timeline', 'raw'].map((name) => html`<a class="${name === view ? 'on' : ''}" href="${href(path, { view: name })}">${name}</a>`)}</div>
<div id="history" data-live>${history}</div>`;
  return { body, live: running, type: description.type };
}

export { actionForm };
