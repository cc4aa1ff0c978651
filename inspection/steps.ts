/**
 * A workflow history as steps: one row per activity, timer, signal, child workflow, cancel or termination, and the
 * workflow's own start and close, each with its start and end (wall clock), duration, outcome, attempts and whole
 * payloads (input, result, failure). The workflow-task bookkeeping (scheduled, started, completed) and SDK markers
 * are folded away; a workflow task that failed or timed out stays, as it says why the workflow is stuck. The console's
 * workflow page and `npm run ops -- history` show the same steps.
 */
import { humanDuration } from './timeline-format';
import type { TimelineEntry } from './workflows';

export type StepKind = 'workflow' | 'activity' | 'timer' | 'signal' | 'child' | 'cancel' | 'workflow task' | 'update' | 'other';

export interface Step {
  kind: StepKind;
  /** Activity type, timer id, signal name, child type, `started` / `completed` for the workflow itself. */
  name: string;
  /** The events the step is made of, first to last. */
  eventIds: number[];
  start: string | null;
  /** Null while the step is under way. */
  end: string | null;
  durationMs: number | null;
  /** `completed`, `failed`, `timed out`, `cancelled`, `fired`, `received`, `running`, `scheduled`, … */
  outcome: string;
  /** The attempt the step ended with (activities). */
  attempt?: number;
  input?: unknown;
  result?: unknown;
  failure?: string;
  /** The child's workflow id, the activity id. */
  ref?: string;
}

type Details = Record<string, unknown>;

const field = (details: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Details)[key] : undefined), details);

const unwrap = (value: unknown): unknown => (Array.isArray(value) && value.length === 1 ? value[0] : value);

/** A failure with its causes: `type: message ← cause`. */
export function failureText(failure: unknown): string | undefined {
  if (!failure || typeof failure !== 'object') return undefined;
  const parts: string[] = [];
  let current: unknown = failure;
  while (current && typeof current === 'object' && parts.length < 5) {
    const type = field(current, 'applicationFailureInfo', 'type');
    const message = field(current, 'message');
    parts.push(`${typeof type === 'string' ? `${type}: ` : ''}${typeof message === 'string' ? message : 'failed'}`);
    current = field(current, 'cause');
  }
  return parts.join(' ← ');
}

const FOLDED = new Set(['WorkflowTaskScheduled', 'WorkflowTaskStarted', 'WorkflowTaskCompleted', 'MarkerRecorded', 'UpsertWorkflowSearchAttributes', 'WorkflowPropertiesModified']);

/** The steps of a history, in the order they started. */
export function historySteps(entries: readonly TimelineEntry[]): Step[] {
  const steps: Step[] = [];
  const open = new Map<string, Step>();
  const close = (step: Step | undefined, entry: TimelineEntry, outcome: string, extra: Partial<Step> = {}) => {
    if (!step) return;
    Object.assign(step, extra, { outcome, end: entry.time });
    step.eventIds.push(entry.eventId);
    if (step.start && entry.time) step.durationMs = Date.parse(entry.time) - Date.parse(step.start);
  };
  const instant = (entry: TimelineEntry, kind: StepKind, name: string, outcome: string, extra: Partial<Step> = {}) =>
    steps.push({ kind, name, eventIds: [entry.eventId], start: entry.time, end: entry.time, durationMs: 0, outcome, ...extra });
  const begin = (key: string, entry: TimelineEntry, kind: StepKind, name: string, extra: Partial<Step> = {}) => {
    const step: Step = { kind, name, eventIds: [entry.eventId], start: entry.time, end: null, durationMs: null, outcome: 'scheduled', ...extra };
    steps.push(step);
    open.set(key, step);
  };
  const byScheduled = (d: Details) => open.get(`activity:${String(field(d, 'scheduledEventId'))}`);
  const byInitiated = (d: Details) => open.get(`child:${String(field(d, 'initiatedEventId'))}`);

  for (const entry of entries) {
    const d = entry.details;
    if (FOLDED.has(entry.type)) continue;
    switch (entry.type) {
      case 'WorkflowExecutionStarted':
        instant(entry, 'workflow', 'started', 'started', { input: unwrap(field(d, 'input')), ref: String(field(d, 'workflowType', 'name') ?? '') });
        break;
      case 'WorkflowExecutionCompleted':
        instant(entry, 'workflow', 'completed', 'completed', { result: unwrap(field(d, 'result')) });
        break;
      case 'WorkflowExecutionFailed':
        instant(entry, 'workflow', 'failed', 'failed', { failure: failureText(field(d, 'failure')) });
        break;
      case 'WorkflowExecutionTimedOut':
        instant(entry, 'workflow', 'timed out', 'timed out');
        break;
      case 'WorkflowExecutionCanceled':
        instant(entry, 'workflow', 'cancelled', 'cancelled');
        break;
      case 'WorkflowExecutionTerminated':
        instant(entry, 'workflow', 'terminated', 'terminated', { failure: typeof field(d, 'reason') === 'string' ? String(field(d, 'reason')) : undefined });
        break;
      case 'WorkflowExecutionContinuedAsNew':
        instant(entry, 'workflow', 'continued as new', 'continued as new', { input: unwrap(field(d, 'input')), ref: String(field(d, 'newExecutionRunId') ?? '') });
        break;
      case 'WorkflowExecutionCancelRequested':
        instant(entry, 'cancel', 'cancel requested', 'received', { input: field(d, 'cause') });
        break;
      case 'WorkflowExecutionSignaled':
        instant(entry, 'signal', String(field(d, 'signalName')), 'received', { input: unwrap(field(d, 'input')) });
        break;
      case 'WorkflowTaskFailed':
        instant(entry, 'workflow task', 'workflow task', 'failed', { failure: failureText(field(d, 'failure')) });
        break;
      case 'WorkflowTaskTimedOut':
        instant(entry, 'workflow task', 'workflow task', 'timed out');
        break;
      case 'ActivityTaskScheduled':
        begin(`activity:${entry.eventId}`, entry, 'activity', String(field(d, 'activityType', 'name')), {
          input: unwrap(field(d, 'input')),
          ref: String(field(d, 'activityId') ?? ''),
        });
        break;
      case 'ActivityTaskStarted': {
        const step = byScheduled(d);
        if (step) {
          step.outcome = 'running';
          step.attempt = Number(field(d, 'attempt') ?? 1);
          step.eventIds.push(entry.eventId);
          const last = failureText(field(d, 'lastFailure'));
          if (last) step.failure = last;
        }
        break;
      }
      case 'ActivityTaskCompleted':
        close(byScheduled(d), entry, 'completed', { result: unwrap(field(d, 'result')) });
        break;
      case 'ActivityTaskFailed':
        close(byScheduled(d), entry, 'failed', { failure: failureText(field(d, 'failure')) });
        break;
      case 'ActivityTaskTimedOut':
        close(byScheduled(d), entry, 'timed out', { failure: failureText(field(d, 'failure')) });
        break;
      case 'ActivityTaskCancelRequested':
        byScheduled(d)?.eventIds.push(entry.eventId);
        break;
      case 'ActivityTaskCanceled':
        close(byScheduled(d), entry, 'cancelled');
        break;
      case 'TimerStarted': {
        const ms = field(d, 'startToFireTimeout', 'ms');
        begin(`timer:${String(field(d, 'timerId'))}`, entry, 'timer', `timer ${String(field(d, 'timerId'))}`, {
          input: typeof ms === 'number' ? humanDuration(ms) : undefined,
        });
        open.get(`timer:${String(field(d, 'timerId'))}`)!.outcome = 'waiting';
        break;
      }
      case 'TimerFired':
        close(open.get(`timer:${String(field(d, 'timerId'))}`), entry, 'fired');
        break;
      case 'TimerCanceled':
        close(open.get(`timer:${String(field(d, 'timerId'))}`), entry, 'cancelled');
        break;
      case 'StartChildWorkflowExecutionInitiated':
        begin(`child:${entry.eventId}`, entry, 'child', String(field(d, 'workflowType', 'name')), {
          input: unwrap(field(d, 'input')),
          ref: String(field(d, 'workflowId') ?? ''),
        });
        break;
      case 'ChildWorkflowExecutionStarted': {
        const step = byInitiated(d);
        if (step) {
          step.outcome = 'running';
          step.eventIds.push(entry.eventId);
        }
        break;
      }
      case 'ChildWorkflowExecutionCompleted':
        close(byInitiated(d), entry, 'completed', { result: unwrap(field(d, 'result')) });
        break;
      case 'ChildWorkflowExecutionFailed':
        close(byInitiated(d), entry, 'failed', { failure: failureText(field(d, 'failure')) });
        break;
      case 'StartChildWorkflowExecutionFailed':
        close(byInitiated(d), entry, 'failed', { failure: String(field(d, 'cause') ?? 'could not start') });
        break;
      case 'ChildWorkflowExecutionCanceled':
        close(byInitiated(d), entry, 'cancelled');
        break;
      case 'ChildWorkflowExecutionTerminated':
        close(byInitiated(d), entry, 'terminated');
        break;
      case 'ChildWorkflowExecutionTimedOut':
        close(byInitiated(d), entry, 'timed out');
        break;
      case 'WorkflowExecutionUpdateAccepted':
        instant(entry, 'update', String(field(d, 'acceptedRequest', 'input', 'name') ?? 'update'), 'accepted', { input: unwrap(field(d, 'acceptedRequest', 'input', 'args')) });
        break;
      case 'WorkflowExecutionUpdateCompleted':
        instant(entry, 'update', 'update', 'completed', { result: unwrap(field(d, 'outcome', 'success')) });
        break;
      default:
        instant(entry, 'other', entry.type, '');
    }
  }
  return steps;
}

const json = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The steps as text: wall-clock start, duration, kind and name, outcome, and whole payloads. */
export function formatSteps(steps: readonly Step[]): string {
  return steps
    .map((step) => {
      const time = step.start ? step.start.replace('T', ' ').replace('Z', '') : '?';
      const duration = step.end === null ? 'open' : step.durationMs ? humanDuration(step.durationMs) : '';
      const attempt = step.attempt && step.attempt > 1 ? ` (attempt ${step.attempt})` : '';
      const lines = [`${time}  ${duration.padEnd(14)}  ${`${step.kind} ${step.name}`.padEnd(40)}  ${step.outcome}${attempt}`.trimEnd()];
      if (step.ref && step.kind === 'child') lines.push(`${' '.repeat(41)}workflow ${step.ref}`);
      if (step.input !== undefined) lines.push(`${' '.repeat(41)}in   ${json(step.input)}`);
      if (step.result !== undefined) lines.push(`${' '.repeat(41)}out  ${json(step.result)}`);
      if (step.failure) lines.push(`${' '.repeat(41)}why  ${step.failure}`);
      return lines.join('\n');
    })
    .join('\n');
}
