/**
 * Workflow inspection for operators: list workflows, describe one (pending activities with attempts and last
 * failure, pending timers), and render its history as a readable timeline with payloads decoded to JSON.
 * Pure functions over a @temporalio/client Client returning plain JSON-able objects; the admin API and
 * scripts/ops.ts wrap them.
 */
import { type Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Timestamp = Parameters<typeof tsToMs>[0];

export type WorkflowStatusName = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT' | 'UNKNOWN';

export interface WorkflowSummary {
  workflowId: string;
  runId: string;
  type: string;
  status: string;
  taskQueue: string;
  startTime: string;
  closeTime: string | null;
  historyLength: number;
}

export interface ListWorkflowsParameters {
  type?: string;
  /** Status name as the client reports it: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, CONTINUED_AS_NEW, TIMED_OUT. */
  status?: string;
  idPrefix?: string;
  startedAfter?: Date;
  startedBefore?: Date;
  pageSize?: number;
}

const statusQueryNames: Record<string, string> = {
  RUNNING: 'Running',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  CANCELLED: 'Canceled',
  CANCELED: 'Canceled',
  TERMINATED: 'Terminated',
  CONTINUED_AS_NEW: 'ContinuedAsNew',
  TIMED_OUT: 'TimedOut',
};

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The visibility query for list filters (exported for the API's validation messages and tests). */
export function visibilityQuery(parameters: ListWorkflowsParameters): string {
  const clauses: string[] = [];
  if (parameters.type) clauses.push(`WorkflowType = ${quote(parameters.type)}`);
  if (parameters.status) {
    const status = statusQueryNames[parameters.status.toUpperCase()];
    if (!status) throw new RangeError(`Unknown workflow status "${parameters.status}"`);
    clauses.push(`ExecutionStatus = ${quote(status)}`);
  }
  if (parameters.idPrefix) clauses.push(`WorkflowId STARTS_WITH ${quote(parameters.idPrefix)}`);
  if (parameters.startedAfter) clauses.push(`StartTime >= ${quote(parameters.startedAfter.toISOString())}`);
  if (parameters.startedBefore) clauses.push(`StartTime < ${quote(parameters.startedBefore.toISOString())}`);
  return clauses.join(' AND ');
}

/** Workflows matching the filters, newest first, at most `pageSize` (default 100). */
export async function listWorkflows(client: Client, parameters: ListWorkflowsParameters = {}): Promise<WorkflowSummary[]> {
  const limit = parameters.pageSize ?? 100;
  const summaries: WorkflowSummary[] = [];
  const query = visibilityQuery(parameters);
  for await (const info of client.workflow.list({ query: query || undefined, pageSize: Math.min(limit, 1000) })) {
    summaries.push({
      workflowId: info.workflowId,
      runId: info.runId,
      type: info.type,
      status: info.status.name,
      taskQueue: info.taskQueue,
      startTime: info.startTime.toISOString(),
      closeTime: info.closeTime?.toISOString() ?? null,
      historyLength: info.historyLength,
    });
    if (summaries.length >= limit) break;
  }
  return summaries;
}

export interface PendingActivitySummary {
  activityId: string;
  activityType: string;
  state: string;
  attempt: number;
  maximumAttempts: number;
  scheduledTime: string | null;
  lastStartedTime: string | null;
  lastHeartbeatTime: string | null;
  heartbeatDetails: unknown[];
  lastFailure: { message: string; type: string | null } | null;
}

export interface PendingTimerSummary {
  timerId: string;
  startedEventId: number;
  firesAt: string | null;
}

export interface WorkflowDescription extends WorkflowSummary {
  pendingActivities: PendingActivitySummary[];
  pendingTimers: PendingTimerSummary[];
  pendingWorkflowTask: { state: string; attempt: number } | null;
  pendingChildren: { workflowId: string; runId: string; type: string }[];
}

const enumName = (names: Record<number, string>, prefix: string, value: number | null | undefined) =>
  (names[value ?? 0] ?? 'UNSPECIFIED').replace(prefix, '');

/** Status, timing and pending work of a workflow's current (or latest) run. */
export async function describeWorkflow(client: Client, workflowId: string): Promise<WorkflowDescription> {
  return (await inspectWorkflow(client, workflowId)).description;
}

/** The description of a workflow and its whole history (fetched once), as the console's workflow page shows them. */
export async function inspectWorkflow(client: Client, workflowId: string): Promise<{ description: WorkflowDescription; timeline: TimelineEntry[]; parent?: { workflowId: string; runId: string } }> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const history = await handle.fetchHistory();
  const parent = description.raw.workflowExecutionInfo?.parentExecution;
  return {
    description: describedRun(description, history.events ?? []),
    timeline: (history.events ?? []).map(timelineEntry),
    parent: parent?.workflowId ? { workflowId: parent.workflowId, runId: parent.runId ?? '' } : undefined,
  };
}

function describedRun(description: Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['describe']>>, events: HistoryEvent[]): WorkflowDescription {
  const raw = description.raw;
  return {
    workflowId: description.workflowId,
    runId: description.runId,
    type: description.type,
    status: description.status.name,
    taskQueue: description.taskQueue,
    startTime: description.startTime.toISOString(),
    closeTime: description.closeTime?.toISOString() ?? null,
    historyLength: description.historyLength,
    pendingActivities: (raw.pendingActivities ?? []).map((activity) => ({
      activityId: activity.activityId ?? '',
      activityType: activity.activityType?.name ?? '',
      state: enumName(temporal.api.enums.v1.PendingActivityState, 'PENDING_ACTIVITY_STATE_', activity.state),
      attempt: activity.attempt ?? 0,
      maximumAttempts: activity.maximumAttempts ?? 0,
      scheduledTime: isoTime(activity.scheduledTime),
      lastStartedTime: isoTime(activity.lastStartedTime),
      lastHeartbeatTime: isoTime(activity.lastHeartbeatTime),
      heartbeatDetails: (activity.heartbeatDetails?.payloads ?? []).map(decodePayload),
      lastFailure: activity.lastFailure
        ? { message: activity.lastFailure.message ?? '', type: activity.lastFailure.applicationFailureInfo?.type ?? null }
        : null,
    })),
    pendingTimers: pendingTimers(events),
    pendingWorkflowTask: raw.pendingWorkflowTask
      ? {
          state: enumName(temporal.api.enums.v1.PendingWorkflowTaskState, 'PENDING_WORKFLOW_TASK_STATE_', raw.pendingWorkflowTask.state),
          attempt: raw.pendingWorkflowTask.attempt ?? 1,
        }
      : null,
    pendingChildren: (raw.pendingChildren ?? []).map((child) => ({
      workflowId: child.workflowId ?? '',
      runId: child.runId ?? '',
      type: child.workflowTypeName ?? '',
    })),
  };
}

/** Timers started in the history and neither fired nor cancelled. */
function pendingTimers(events: HistoryEvent[]): PendingTimerSummary[] {
  const open = new Map<string, PendingTimerSummary>();
  for (const event of events) {
    const started = event.timerStartedEventAttributes;
    if (started) {
      const startMs = event.eventTime ? tsToMs(event.eventTime) : undefined;
      const durationMs = started.startToFireTimeout ? tsToMs(started.startToFireTimeout) : 0;
      open.set(started.timerId ?? '', {
        timerId: started.timerId ?? '',
        startedEventId: Number(event.eventId ?? 0),
        firesAt: startMs === undefined ? null : new Date(startMs + durationMs).toISOString(),
      });
    }
    const closed = event.timerFiredEventAttributes ?? event.timerCanceledEventAttributes;
    if (closed) open.delete(closed.timerId ?? '');
  }
  return [...open.values()];
}

export interface TimelineEntry {
  eventId: number;
  time: string | null;
  /** Readable event type, e.g. WorkflowExecutionStarted. */
  type: string;
  details: Record<string, unknown>;
}

/** The workflow's history (current run) as a readable timeline. */
export async function workflowTimeline(client: Client, workflowId: string): Promise<TimelineEntry[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map(timelineEntry);
}

const eventTypeNames = temporal.api.enums.v1.EventType as unknown as Record<number, string>;

/** One history event as a timeline entry: its attributes with payloads decoded and ids/times simplified. */
export function timelineEntry(event: HistoryEvent): TimelineEntry {
  const typeName = eventTypeNames[event.eventType ?? 0] ?? 'EVENT_TYPE_UNSPECIFIED';
  const type = typeName
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, _separator: string, letter: string) => letter.toUpperCase());
  const attributesKey = Object.keys(event).find((key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key]);
  const attributes = attributesKey ? (event as Record<string, unknown>)[attributesKey] : {};
  return {
    eventId: Number(event.eventId ?? 0),
    time: isoTime(event.eventTime),
    type,
    details: (simplify(attributes) as Record<string, unknown> | undefined) ?? {},
  };
}

function isoTime(timestamp: Timestamp | null | undefined): string | null {
  return timestamp ? new Date(tsToMs(timestamp)).toISOString() : null;
}

function decodePayload(payload: temporal.api.common.v1.IPayload): unknown {
  const data = payload.data ? Buffer.from(payload.data) : Buffer.alloc(0);
  const encoding = payload.metadata?.encoding ? Buffer.from(payload.metadata.encoding).toString('utf8') : '';
  if (encoding === 'binary/null') return null;
  if (encoding === 'json/plain') {
    try {
      return JSON.parse(data.toString('utf8')) as unknown;
    } catch {
      return data.toString('utf8');
    }
  }
  return { encoding, base64: data.toString('base64') };
}

const isPayload = (value: object): value is temporal.api.common.v1.IPayload => 'data' in value && 'metadata' in value;

/** Makes protobuf values JSON-friendly: payloads decoded, Longs to numbers, durations to ms, bytes to base64. */
function simplify(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if ('toNumber' in value && typeof (value as { toNumber: unknown }).toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber();
  }
  if (Array.isArray(value)) return value.map(simplify);
  if (isPayload(value)) return decodePayload(value);
  const record = value as Record<string, unknown>;
  if ('payloads' in record && Array.isArray(record.payloads)) return record.payloads.map((payload) => decodePayload(payload as temporal.api.common.v1.IPayload));
  const keys = Object.keys(record);
  if (keys.length > 0 && keys.every((key) => key === 'seconds' || key === 'nanos')) {
    return { ms: tsToMs(record as Timestamp) };
  }
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    const simplified = simplify(record[key]);
    if (simplified !== undefined && simplified !== '' && !(typeof simplified === 'object' && simplified !== null && Object.keys(simplified).length === 0)) {
      result[key] = simplified;
    }
  }
  return result;
}

export interface WorkflowStateAnswer {
  /** The query asked: the workflow's own `…State` query. */
  query: string;
  state: unknown;
}

/**
 * The workflow's own state query (the one whose name ends in `State`, found through the SDK's built-in
 * `__temporal_workflow_metadata` query) and its answer; undefined when the workflow defines none.
 */
export async function queryWorkflowState(client: Client, workflowId: string, options: { timeoutMs?: number } = {}): Promise<WorkflowStateAnswer | undefined> {
  if (options.timeoutMs !== undefined) {
    // A query waits for a worker to answer: bounded, so a page never waits on a workflow no worker polls for.
    return await client.connection.withDeadline(Date.now() + options.timeoutMs, () => queryWorkflowState(client, workflowId));
  }
  const handle = client.workflow.getHandle(workflowId);
  const metadata = await handle.query<{ definition?: { queryDefinitions?: { name?: string }[] } }>('__temporal_workflow_metadata');
  const query = metadata.definition?.queryDefinitions?.map((definition) => definition.name).find((name) => name?.endsWith('State'));
  if (!query) return undefined;
  return { query, state: await handle.query(query) };
}

export interface WorkflowPage {
  workflows: WorkflowSummary[];
  /** Opaque; pass it back for the next page (undefined on the last). */
  nextPageToken?: string;
}

const statusName = (status: number | null | undefined) =>
  enumName(temporal.api.enums.v1.WorkflowExecutionStatus, 'WORKFLOW_EXECUTION_STATUS_', status).replace('CANCELED', 'CANCELLED');

/**
 * One page of the workflows matching the filters, newest first: the service pages (no more than `pageSize` rows are
 * read), and `pageToken` (the previous page's `nextPageToken`, base64url) continues.
 */
export async function listWorkflowPage(client: Client, parameters: ListWorkflowsParameters & { pageToken?: string }): Promise<WorkflowPage> {
  const answer = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query: visibilityQuery(parameters),
    pageSize: parameters.pageSize ?? 50,
    nextPageToken: parameters.pageToken ? Buffer.from(parameters.pageToken, 'base64url') : undefined,
  });
  return {
    workflows: (answer.executions ?? []).map((info) => ({
      workflowId: info.execution?.workflowId ?? '',
      runId: info.execution?.runId ?? '',
      type: info.type?.name ?? '',
      status: statusName(info.status),
      taskQueue: info.taskQueue ?? '',
      startTime: isoTime(info.startTime) ?? '',
      closeTime: isoTime(info.closeTime),
      historyLength: Number(info.historyLength ?? 0),
    })),
    nextPageToken: answer.nextPageToken?.length ? Buffer.from(answer.nextPageToken).toString('base64url') : undefined,
  };
}

export const WORKFLOW_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT'] as const;

/** How many workflows match the filters in each status (the status filter itself left out). */
export async function countWorkflowsByStatus(client: Client, parameters: ListWorkflowsParameters): Promise<Record<string, number>> {
  const counts = await Promise.all(
    WORKFLOW_STATUSES.map(async (status) => {
      const answer = await client.workflowService.countWorkflowExecutions({
        namespace: client.options.namespace,
        query: visibilityQuery({ ...parameters, status }),
      });
      return [status, Number(answer.count ?? 0)] as const;
    }),
  );
  return Object.fromEntries(counts);
}
