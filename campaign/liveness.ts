/**
 * Invariant 6 of the campaign's checker, liveness: through the Temporal client, every workflow is completed, or
 * running and either waiting for a person with a reason an operator can read (a partner request in `needs_review` or
 * held by a pause, as its state query and the console show it), or one of the long-lived workflows (watchers,
 * hedging, reserves, the nonce pool, retention, webhook endpoints), or waiting on something with an end (a timer, an
 * activity or a workflow task at work);
 * none stuck with no progress (an activity failing again and again, a workflow task failing or taken by no worker,
 * nothing pending and no one asked); and every chain watcher at its chain's head (its stored cursor past the head
 * read when judged).
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { createPublicClient, http } from 'viem';
import { confirmedSlotReader } from '../chains/solana-slots';
import type { Queryable } from '../db/pool';
import type { StackFile } from '../start/stack-file';
import { EVM_CHAINS, SOLANA_CHAIN } from '../domain/chains';
import { describeWorkflow, queryWorkflowState, type WorkflowDescription } from '../inspection/workflows';
import type { Violation } from './invariants';

/** The workflows that run for as long as the product does (workflows/index.ts): they never complete, and wait on signals. */
export const LONG_LIVED_WORKFLOW_TYPES = new Set([
  'chainWatcherWorkflow',
  'reservesWorkflow',
  'hedgeWorkflow',
  'solanaNoncePoolWorkflow',
  'marketDataRetentionWorkflow',
  'webhookEndpointWorkflow',
]);

/** An activity retried this many times, failing each, is stuck (the product's retries start at 1-2 s and double). */
export const STUCK_ACTIVITY_ATTEMPTS = 3;
/** A workflow task attempted this many times is failing (one retry is a worker that died mid-task). */
export const STUCK_WORKFLOW_TASK_ATTEMPTS = 3;

/** A workflow task no worker has taken for this long means no worker polls its task queue (as a watcher counts as down after WATCHER_STALL_SECONDS). */
export const UNTAKEN_WORKFLOW_TASK_MS = 60_000;

/** The steps of a partner workflow that wait for a person (workflows/partner-steps.ts): review, and a pause an operator set. */
const WAITING_FOR_A_PERSON = new Set(['needs_review', 'paused']);

/** How to read each chain's head now: EVM its latest block, Solana its `confirmed` slot (what its watcher reads up to). */
export type ChainHeads = Record<string, () => Promise<number | bigint>>;

/** The heads of the chains a stack.json names (`chains[<chain>].rpcUrl`): each EVM chain's latest block, Solana's confirmed slot. */
export function stackChainHeads(stack: Partial<StackFile> | undefined): ChainHeads {
  const chains = (stack?.chains ?? {}) as Record<string, { rpcUrl?: string } | undefined>;
  const heads: ChainHeads = {};
  for (const [chain, entry] of Object.entries(chains)) {
    if (!entry?.rpcUrl) continue;
    if (chain === SOLANA_CHAIN) heads[chain] = confirmedSlotReader(entry.rpcUrl);
    else if ((EVM_CHAINS as readonly string[]).includes(chain)) {
      const client = createPublicClient({ transport: http(entry.rpcUrl) });
      heads[chain] = () => client.getBlockNumber({ cacheTime: 0 });
    }
  }
  return heads;
}

export interface LivenessOptions {
  client: Client;
  /** A visibility query narrowing the workflows judged (e.g. `TaskQueue = '…'`); all of the namespace by default. */
  query?: string;
  /** The product's database and its chains' heads, to judge the watchers' cursors; without them the watchers are not judged. */
  db?: Queryable;
  heads?: ChainHeads;
  /** How long a watcher has to reach the head read when judged (it polls every few seconds). Default 30 s. */
  headTimeoutMs?: number;
  /** How long a workflow task may wait for a worker before the workflow counts as stuck (default UNTAKEN_WORKFLOW_TASK_MS). */
  untakenWorkflowTaskMs?: number;
}

/** A workflow that waits for a person, and why, as an operator reads it. */
export interface WaitingWorkflow {
  workflowId: string;
  type: string;
  step: string;
  reason: string;
}

export interface LivenessReport {
  violations: Violation[];
  waiting: WaitingWorkflow[];
  /** How many workflow runs were judged. */
  judged: number;
}

const violation = (rule: string, records: Record<string, string>): Violation => ({ invariant: '6 liveness', rule, records });

/** What in a running workflow's pending work shows it stuck: a workflow task or an activity failing over and over. */
function stuckWork(description: WorkflowDescription): Violation[] {
  const records = { workflowId: description.workflowId, runId: description.runId, type: description.type };
  const violations: Violation[] = [];
  const task = description.pendingWorkflowTask;
  if (task && task.attempt >= STUCK_WORKFLOW_TASK_ATTEMPTS) {
    violations.push(violation('a workflow task keeps failing', { ...records, attempts: String(task.attempt) }));
  }
  for (const activity of description.pendingActivities) {
    if (activity.attempt < STUCK_ACTIVITY_ATTEMPTS || !activity.lastFailure) continue;
    violations.push(
      violation('an activity keeps failing', { ...records, activity: activity.activityType, attempts: String(activity.attempt), lastFailure: activity.lastFailure.message }),
    );
  }
  return violations;
}

/** The person a running workflow waits for, read from its own state query (partner requests), if it waits for one. */
async function waitingFor(client: Client, description: WorkflowDescription): Promise<{ step: string; reason: string | null } | undefined> {
  if (description.type !== 'partnerMintWorkflow' && description.type !== 'redemptionWorkflow') return undefined;
  const answer = await queryWorkflowState(client, description.workflowId, { timeoutMs: 10_000 });
  const state = answer?.state as { step?: string; reason?: string | null } | undefined;
  if (!state?.step || !WAITING_FOR_A_PERSON.has(state.step)) return undefined;
  return { step: state.step, reason: state.reason ?? null };
}

/** The workflow task scheduled and not taken yet, named by when it was scheduled (the service's clock), if there is one. */
async function scheduledTask(client: Client, workflowId: string): Promise<number | undefined> {
  const task = (await client.workflow.getHandle(workflowId).describe()).raw.pendingWorkflowTask;
  if (!task?.scheduledTime || task.startedTime) return undefined;
  return tsToMs(task.scheduledTime);
}

/** Judges one running workflow: stuck, waiting for a person, long-lived, or waiting on something that ends. */
async function judgeRunning(client: Client, workflowId: string, report: LivenessReport, untaken: Map<string, number>): Promise<void> {
  const description = await describeWorkflow(client, workflowId);
  if (description.status !== 'RUNNING') return;
  const stuck = stuckWork(description);
  report.violations.push(...stuck);
  if (description.pendingWorkflowTask?.state === 'SCHEDULED') {
    const scheduled = await scheduledTask(client, workflowId);
    // Judged once the limit has passed: a query now would wait for a worker that may not come.
    if (scheduled !== undefined) {
      untaken.set(workflowId, scheduled);
      return;
    }
  }
  // A workflow task a worker is running is work under way: a timer that just fired, an activity that just completed.
  // Should the worker die with it, the task times out and is scheduled again (and judged by its attempts above).
  if (description.pendingWorkflowTask?.state === 'STARTED') return;
  if (stuck.length > 0 || LONG_LIVED_WORKFLOW_TYPES.has(description.type)) return;
  const records = { workflowId, runId: description.runId, type: description.type };
  let waiting;
  try {
    waiting = await waitingFor(client, description);
  } catch (error) {
    report.violations.push(violation('a workflow does not answer its state query', { ...records, error: error instanceof Error ? error.message : String(error) }));
    return;
  }
  if (waiting) {
    if (waiting.reason?.trim()) report.waiting.push({ workflowId, type: description.type, step: waiting.step, reason: waiting.reason });
    else report.violations.push(violation('a workflow waits for a person without a reason', { ...records, step: waiting.step }));
    return;
  }
  if (description.pendingActivities.length === 0 && description.pendingTimers.length === 0 && description.pendingChildren.length === 0) {
    report.violations.push(violation('a workflow waits with nothing pending and for no one', records));
  }
}

interface Cursor {
  chain: string;
  nextBlock: string;
  status: 'ok' | 'halted';
  lastError: string | null;
}

const readCursors = async (db: Queryable) =>
  (await db.query<Cursor>(`SELECT chain, next_block::text AS "nextBlock", status, last_error::text AS "lastError" FROM chain_cursors ORDER BY chain`)).rows;

/**
 * Each chain watcher at its chain's head: not halted, and its cursor (the next block, or slot, it will read) past the
 * head read when judged, within `timeoutMs` (the chain may move on meanwhile: the head is read once, first).
 */
export async function checkWatchersAtHead(db: Queryable, heads: ChainHeads, timeoutMs: number): Promise<Violation[]> {
  const violations: Violation[] = [];
  const cursors = await readCursors(db);
  const targets = new Map<string, bigint>();
  for (const cursor of cursors) {
    if (cursor.status === 'halted') {
      violations.push(violation('a chain watcher is halted', { chain: cursor.chain, nextBlock: cursor.nextBlock, lastError: cursor.lastError ?? '' }));
      continue;
    }
    const head = heads[cursor.chain];
    if (head) targets.set(cursor.chain, BigInt(await head()));
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const behind = (await readCursors(db)).filter((cursor) => targets.has(cursor.chain) && BigInt(cursor.nextBlock) <= targets.get(cursor.chain)!);
    if (behind.length === 0) return violations;
    if (Date.now() >= deadline) {
      return [
        ...violations,
        ...behind.map((cursor) => violation('a chain watcher is behind its chain', { chain: cursor.chain, nextBlock: cursor.nextBlock, head: targets.get(cursor.chain)!.toString(), waitedMs: String(timeoutMs) })),
      ];
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** (6) Every workflow run the query selects, and the chain watchers' cursors when given the database and the heads. */
export async function checkLiveness(options: LivenessOptions): Promise<LivenessReport> {
  const report: LivenessReport = { violations: [], waiting: [], judged: 0 };
  const running: string[] = [];
  for await (const info of options.client.workflow.list({ query: options.query || undefined })) {
    report.judged += 1;
    const status = info.status.name;
    if (status === 'COMPLETED' || status === 'CONTINUED_AS_NEW') continue;
    if (status === 'RUNNING') running.push(info.workflowId);
    else report.violations.push(violation('a workflow ended without completing', { workflowId: info.workflowId, runId: info.runId, type: info.type, status }));
  }
  // Workflow tasks seen scheduled and not taken: looked at again once the limit has passed (on this process's clock,
  // never compared with the service's); the same task still waiting means no worker takes it.
  const untaken = new Map<string, number>();
  for (const workflowId of running) await judgeRunning(options.client, workflowId, report, untaken);
  if (untaken.size > 0) {
    const limitMs = options.untakenWorkflowTaskMs ?? UNTAKEN_WORKFLOW_TASK_MS;
    await new Promise((resolve) => setTimeout(resolve, limitMs));
    for (const [workflowId, scheduled] of untaken) {
      if ((await scheduledTask(options.client, workflowId)) !== scheduled) continue;
      const description = await describeWorkflow(options.client, workflowId);
      report.violations.push(
        violation('no worker takes its workflow task', { workflowId, runId: description.runId, type: description.type, taskQueue: description.taskQueue, waitedMs: String(limitMs) }),
      );
    }
  }
  if (options.db && options.heads) report.violations.push(...(await checkWatchersAtHead(options.db, options.heads, options.headTimeoutMs ?? 30_000)));
  return report;
}
