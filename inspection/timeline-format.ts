/**
 * A workflow history for people: one line per event saying what it means (activity names and attempts, timers with
 * human durations, signals, results and failures, payloads whole), times relative to the start, and none of the SDK's
 * bookkeeping (binary checksums, sdk metadata, identities). `npm run ops -- history --events` prints it (steps.ts is
 * the default view); `--json` prints the raw form.
 */
import type { TimelineEntry } from './workflows';

/** `892553` → `14 min 52.553 s`; `86_400_000` → `1 d`; `1500` → `1.5 s`. */
export function humanDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${Number((rest / 1_000).toFixed(3))} s`);
  return parts.join(' ');
}

type Details = Record<string, unknown>;

const field = (details: Details, ...path: string[]): unknown =>
  path.reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Details)[key] : undefined), details);

const durationOf = (value: unknown): string | undefined => {
  const ms = field({ value }, 'value', 'ms');
  return typeof ms === 'number' ? humanDuration(ms) : undefined;
};

/** A payload list as compact JSON, whole: one value unwrapped. */
function payloads(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(Array.isArray(value) && value.length === 1 ? value[0] : value);
}

const failureOf = (details: Details): string => {
  const message = field(details, 'failure', 'message');
  const type = field(details, 'failure', 'applicationFailureInfo', 'type');
  return `${typeof type === 'string' ? `${type}: ` : ''}${typeof message === 'string' ? message : 'failed'}`;
};

/** What one event means, without its type name. */
export function describeEvent(entry: TimelineEntry, activities: Map<number, string>): string {
  const d = entry.details;
  const activity = () => activities.get(Number(field(d, 'scheduledEventId'))) ?? 'activity';
  switch (entry.type) {
    case 'WorkflowExecutionStarted':
      return `${String(field(d, 'workflowType', 'name'))} on ${String(field(d, 'taskQueue', 'name'))}, input ${payloads(field(d, 'input'))}`.trim();
    case 'WorkflowExecutionCompleted':
      return `completed${field(d, 'result') === undefined ? '' : `, result ${payloads(field(d, 'result'))}`}`;
    case 'WorkflowExecutionFailed':
      return `failed: ${failureOf(d)}`;
    case 'WorkflowExecutionContinuedAsNew':
      return `continued as new run ${String(field(d, 'newExecutionRunId'))}${durationOf(field(d, 'backoffStartInterval')) ? ` after ${durationOf(field(d, 'backoffStartInterval'))}` : ''}`;
    case 'WorkflowExecutionSignaled':
      return `signal ${String(field(d, 'signalName'))} ${payloads(field(d, 'input'))}`.trim();
    case 'WorkflowExecutionTerminated':
      return `terminated${typeof field(d, 'reason') === 'string' ? `: ${String(field(d, 'reason'))}` : ''}`;
    case 'WorkflowExecutionCancelRequested':
      return 'cancellation requested';
    case 'WorkflowTaskScheduled':
      return 'workflow task scheduled';
    case 'WorkflowTaskStarted':
      return 'workflow task picked up by a worker';
    case 'WorkflowTaskCompleted':
      return 'workflow task completed';
    case 'WorkflowTaskFailed':
      return `workflow task failed: ${failureOf(d)}`;
    case 'WorkflowTaskTimedOut':
      return 'workflow task timed out';
    case 'ActivityTaskScheduled': {
      const name = String(field(d, 'activityType', 'name'));
      const timeout = durationOf(field(d, 'startToCloseTimeout'));
      return `${name} #${String(field(d, 'activityId'))} scheduled ${payloads(field(d, 'input'))}${timeout ? `, ${timeout} per attempt` : ''}`;
    }
    case 'ActivityTaskStarted':
      return `${activity()} started, attempt ${String(field(d, 'attempt') ?? 1)}${field(d, 'lastFailure') ? ` (last failure: ${failureOf({ failure: field(d, 'lastFailure') })})` : ''}`;
    case 'ActivityTaskCompleted':
      return `${activity()} completed${field(d, 'result') === undefined ? '' : `, result ${payloads(field(d, 'result'))}`}`;
    case 'ActivityTaskFailed':
      return `${activity()} failed: ${failureOf(d)}`;
    case 'ActivityTaskTimedOut':
      return `${activity()} timed out`;
    case 'TimerStarted':
      return `timer ${String(field(d, 'timerId'))} set for ${durationOf(field(d, 'startToFireTimeout')) ?? '?'}`;
    case 'TimerFired':
      return `timer ${String(field(d, 'timerId'))} fired`;
    case 'TimerCanceled':
      return `timer ${String(field(d, 'timerId'))} cancelled`;
    case 'StartChildWorkflowExecutionInitiated':
      return `child ${String(field(d, 'workflowType', 'name'))} ${String(field(d, 'workflowId'))} starting`;
    case 'ChildWorkflowExecutionCompleted':
      return `child ${String(field(d, 'workflowExecution', 'workflowId'))} completed`;
    case 'MarkerRecorded':
      return `marker ${String(field(d, 'markerName'))}`;
    default:
      return '';
  }
}

/** The timeline as text: `#id  +elapsed  Type  meaning`, elapsed since the first event. */
export function formatTimeline(entries: TimelineEntry[]): string {
  const start = entries[0]?.time ? Date.parse(entries[0].time) : undefined;
  const activities = new Map<number, string>();
  const lines: string[] = [];
  if (entries[0]?.time) lines.push(`started ${entries[0].time}`);
  for (const entry of entries) {
    if (entry.type === 'ActivityTaskScheduled') {
      activities.set(entry.eventId, `${String(field(entry.details, 'activityType', 'name'))} #${String(field(entry.details, 'activityId'))}`);
    }
    const elapsed = entry.time && start !== undefined ? `+${humanDuration(Date.parse(entry.time) - start)}` : '';
    const meaning = describeEvent(entry, activities);
    lines.push(`${String(entry.eventId).padStart(4)}  ${elapsed.padEnd(18)}  ${entry.type.padEnd(32)}  ${meaning}`.trimEnd());
  }
  return lines.join('\n');
}
