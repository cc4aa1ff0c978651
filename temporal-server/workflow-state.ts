/**
 * Mutable state of one workflow run in the Temporal service, and the history it writes.
 *
 * The run owns its event history, its lifecycle (start, signals, cancel requests, termination, timeout,
 * close), its timers and child workflows. Its state is a fold over its history: every event, whether written
 * now or reloaded after a restart, goes through `apply` (here, in WorkflowTasks and in RunActivities), so a
 * run rebuilt from its stored history has the state the live run had. What history does not carry (attempts
 * of retries not yet written, events buffered during a workflow task) is the run's `record()`, stored with it
 * and handed back to `resume()`, which re-arms timers and timeouts and re-queues tasks. Its workflow tasks and the events buffered during them are in
 * run-workflow-tasks.ts, its activities in run-activities.ts. Everything that crosses runs (task queues,
 * children, continue-as-new, visibility) goes through the RunHost.
 */
import { type ScheduledTimer, type VirtualClock } from './clock';
import { eventNumber, newEvent, type PendingEvent } from './history-events';
import {
  durationToMs,
  EventType,
  type Failure,
  type HistoryEvent,
  int64,
  msToDuration,
  msToTimestamp,
  type Payloads,
  RetryState,
  temporal,
  timestampToMs,
  toNumber,
  WorkflowExecutionStatus,
} from './proto';
import { type ActivityRecord, type PendingActivity, RunActivities } from './run-activities';
import { type WorkflowTaskRecord, WorkflowTasks } from './run-workflow-tasks';

type Header = temporal.api.common.v1.IHeader;

/** What a run needs from the service around it. */
export interface RunHost {
  readonly clock: VirtualClock;
  readonly namespace: string;
  /** Offers the run's scheduled workflow task to pollers of `taskQueue`; `dispatch` identifies the offer. */
  enqueueWorkflowTask(tasks: WorkflowTasks, taskQueue: string, dispatch: number): void;
  /** Whether the worker behind a sticky queue is polling it (or did recently). */
  stickyQueueLive(taskQueue: string): boolean;
  /** Offers an activity attempt to pollers of the activity's task queue. */
  enqueueActivityTask(activities: RunActivities, activity: PendingActivity): void;
  /** Called once when the run reaches a closed status. */
  runClosed(run: WorkflowRun): void;
  /** Called after every new history event (wakes history long-polls). */
  historyGrew(run: WorkflowRun): void;
  /** Called after any change of the run's state, in history or not (the durable mode stores it). */
  runChanged(run: WorkflowRun): void;
}

/** What a run keeps beside its history: enough for `resume()` to carry on after a restart. */
export interface RunRecord {
  workflowTask?: WorkflowTaskRecord;
  activities: ActivityRecord[];
  /** Event groups buffered during the started workflow task, each as encoded events (ids unassigned). */
  buffered: { time: number; events: PendingEvent[]; triggersTask: boolean }[];
}

export interface RunInit {
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string;
  input?: Payloads | null;
  header?: Header | null;
  memo?: temporal.api.common.v1.IMemo | null;
  searchAttributes?: temporal.api.common.v1.ISearchAttributes | null;
  executionTimeoutMs: number;
  runTimeoutMs: number;
  taskTimeoutMs: number;
  /** Epoch ms after which the whole chain of runs times out; 0 for none. */
  executionExpirationTime: number;
  identity: string;
  requestId: string;
  retryPolicy?: temporal.api.common.v1.IRetryPolicy | null;
  attempt: number;
  firstExecutionRunId: string;
  continuedExecutionRunId?: string;
  initiator?: temporal.api.enums.v1.ContinueAsNewInitiator;
  continuedFailure?: Failure | null;
  lastCompletionResult?: Payloads | null;
  firstWorkflowTaskBackoffMs: number;
  parent?: { run: WorkflowRun; initiatedEventId: number };
}

export interface PendingChild {
  initiatedEventId: number;
  workflowId: string;
  workflowType: string;
  namespace: string;
  runId?: string;
  startedEventId?: number;
  parentClosePolicy: temporal.api.enums.v1.ParentClosePolicy;
}

/** How a closed run ended, for parents and result waiters. */
export type RunOutcome =
  | { status: 'completed'; result?: Payloads | null }
  | { status: 'failed'; failure?: Failure | null; retryState: RetryState }
  | { status: 'canceled'; details?: Payloads | null }
  | { status: 'terminated' }
  | { status: 'timedOut'; retryState: RetryState }
  | { status: 'continuedAsNew'; newRunId: string };

const statusByOutcome: Record<RunOutcome['status'], WorkflowExecutionStatus> = {
  completed: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
  failed: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
  canceled: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
  terminated: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
  timedOut: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
  continuedAsNew: WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
};

export class WorkflowRun {
  readonly history: HistoryEvent[] = [];
  /** Bytes of the history, protobuf-encoded event by event (what WorkflowTaskStarted reports as historySizeBytes). */
  historySizeBytes = 0;
  status: WorkflowExecutionStatus = WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  outcome?: RunOutcome;
  startTime: number;
  closeTime?: number;
  memo: temporal.api.common.v1.IMemo;
  searchAttributes: temporal.api.common.v1.ISearchAttributes;
  /** The run's workflow tasks, and the events buffered while one is started. */
  readonly workflowTasks = new WorkflowTasks(this);
  readonly activities = new RunActivities(this);
  readonly timers = new Map<string, { startedEventId: number; firesAt: number; handle?: ScheduledTimer }>();
  readonly children = new Map<number, PendingChild>();
  /** Number of legacy queries waiting for, or being answered by, a worker. */
  pendingQueries = 0;
  /** Query tasks waiting for the current workflow task to finish before they can be dispatched. */
  readonly queriesAwaitingTask: (() => void)[] = [];
  cancelRequested = false;
  private runTimeoutTimer?: ScheduledTimer;
  private readonly requestIdSet = new Set<string>();
  /** Request ids applied to the run, in order (the durable mode stores the new ones). */
  readonly requestIds: string[] = [];

  constructor(
    readonly host: RunHost,
    readonly init: RunInit,
  ) {
    this.startTime = host.clock.now();
    this.memo = init.memo ?? {};
    this.searchAttributes = init.searchAttributes ?? {};
    this.rememberRequest(init.requestId);
  }

  get workflowId(): string {
    return this.init.workflowId;
  }

  get runId(): string {
    return this.init.runId;
  }

  get isRunning(): boolean {
    return this.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  get nextEventId(): number {
    return this.history.length + 1;
  }

  get execution(): temporal.api.common.v1.IWorkflowExecution {
    return { workflowId: this.workflowId, runId: this.runId };
  }

  /** Work the virtual clock must not skip past: outstanding tasks and queries. */
  get busy(): boolean {
    if (this.pendingQueries > 0) return true;
    if (!this.isRunning) return false;
    if (this.workflowTasks.task) return true;
    return this.activities.hasWork;
  }

  /** True if a start or signal with this request id was already applied to the run. */
  seenRequest(requestId: string): boolean {
    return requestId !== '' && this.requestIdSet.has(requestId);
  }

  rememberRequest(requestId: string): void {
    if (!requestId || this.requestIdSet.has(requestId)) return;
    this.requestIdSet.add(requestId);
    this.requestIds.push(requestId);
    this.host.runChanged(this);
  }

  // ---------------------------------------------------------------- history

  /** Appends an event now (use appendOrBuffer for events that may arrive during a workflow task). */
  addEvent(eventType: EventType, attributes: HistoryEvent, time = this.host.clock.now()): HistoryEvent {
    const event = newEvent(this.nextEventId, eventType, attributes, time);
    this.appendEvent(event);
    return event;
  }

  /** Appends a numbered event to history and folds it into the run's state. */
  appendEvent(event: HistoryEvent): void {
    this.history.push(event);
    this.historySizeBytes += encodedSize(event);
    this.apply(event);
    this.host.historyGrew(this);
    this.host.runChanged(this);
  }

  /**
   * Writes a group of events at `time`. An activity outcome right after its (deferred) ActivityTaskStarted
   * refers to that event; a child's close written before its start was known refers to the start in history.
   */
  writeEvents(events: PendingEvent[], time: number): void {
    let previous: HistoryEvent | undefined;
    for (const { eventType, attributes } of events) {
      const written = this.addEvent(eventType, withReferences(this, attributes, previous), time);
      previous = written;
    }
  }

  /**
   * Writes events now, or — while a workflow task is started — after that task's completion events.
   * `triggersTask` asks for a new workflow task once written.
   */
  appendOrBuffer(events: PendingEvent[], triggersTask: boolean): void {
    this.workflowTasks.appendOrBuffer(events, triggersTask);
  }

  /** Something about the run changed outside its history (attempts, buffered events, heartbeats). */
  touch(): void {
    this.host.runChanged(this);
  }

  // ---------------------------------------------------------------- the fold

  /** Folds one history event into the run's state: the only place history events change it. */
  apply(event: HistoryEvent): void {
    const time = timestampToMs(event.eventTime);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        const attributes = event.workflowExecutionStartedEventAttributes ?? {};
        this.startTime = time;
        this.memo = attributes.memo ?? {};
        this.searchAttributes = attributes.searchAttributes ?? {};
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
        this.cancelRequested = true;
        return;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const upserted = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes ?? {};
        this.searchAttributes = { indexedFields: { ...this.searchAttributes.indexedFields, ...upserted.indexedFields } };
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED: {
        const upserted = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo ?? {};
        this.memo = { fields: { ...this.memo.fields, ...upserted.fields } };
        return;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED: {
        const attributes = event.timerStartedEventAttributes ?? {};
        this.timers.set(attributes.timerId ?? '', { startedEventId: eventNumber(event), firesAt: time + durationToMs(attributes.startToFireTimeout) });
        return;
      }
      case EventType.EVENT_TYPE_TIMER_FIRED:
      case EventType.EVENT_TYPE_TIMER_CANCELED: {
        const attributes = event.timerFiredEventAttributes ?? event.timerCanceledEventAttributes ?? {};
        const timer = this.timers.get(attributes.timerId ?? '');
        if (timer?.startedEventId === toNumber(attributes.startedEventId)) this.timers.delete(attributes.timerId ?? '');
        return;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        const attributes = event.startChildWorkflowExecutionInitiatedEventAttributes ?? {};
        const initiatedEventId = eventNumber(event);
        this.children.set(initiatedEventId, {
          initiatedEventId,
          workflowId: attributes.workflowId ?? '',
          workflowType: attributes.workflowType?.name ?? '',
          namespace: attributes.namespace ?? '',
          parentClosePolicy: attributes.parentClosePolicy ?? temporal.api.enums.v1.ParentClosePolicy.PARENT_CLOSE_POLICY_TERMINATE,
        });
        return;
      }
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED: {
        const attributes = event.childWorkflowExecutionStartedEventAttributes ?? {};
        const child = this.children.get(toNumber(attributes.initiatedEventId));
        if (child) {
          child.runId = attributes.workflowExecution?.runId ?? undefined;
          child.startedEventId = eventNumber(event);
        }
        return;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED:
      case EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT:
        this.children.delete(childInitiatedEventId(event));
        return;
      default: {
        const outcome = outcomeOf(event);
        if (outcome) {
          this.outcome = outcome;
          this.status = statusByOutcome[outcome.status];
          this.closeTime = time;
          return;
        }
        this.workflowTasks.apply(event);
        this.activities.apply(event);
      }
    }
  }

  /** Folds a stored history into a run just created for it (nothing is written or armed). */
  replay(events: HistoryEvent[]): void {
    for (const event of events) {
      this.history.push(event);
      this.historySizeBytes += encodedSize(event);
      this.apply(event);
    }
  }

  /** What the run keeps beside its history (see RunRecord). */
  record(): RunRecord {
    return { workflowTask: this.workflowTasks.record(), activities: this.activities.record(), buffered: this.workflowTasks.bufferedGroups() };
  }

  /**
   * Carries on a run rebuilt from its history after a restart: a workflow task handed out before is timed
   * out and offered again (its attempt counted), buffered events are written, timers and timeouts are armed
   * against the clock (those due while the service was down fire at once), activities are offered again.
   */
  resume(record: RunRecord | undefined): void {
    if (!this.isRunning) return;
    this.workflowTasks.resume(record?.workflowTask, record?.buffered ?? []);
    for (const timerId of this.timers.keys()) this.armTimer(timerId);
    this.activities.resume(record?.activities ?? []);
    this.armRunTimeout();
  }

  // ---------------------------------------------------------------- lifecycle

  /** Writes WorkflowExecutionStarted (plus an optional first signal) and schedules the first workflow task. */
  start(firstSignal?: { signalName: string; input?: Payloads | null; header?: Header | null; identity: string }): void {
    const init = this.init;
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, {
      workflowExecutionStartedEventAttributes: {
        workflowId: init.workflowId,
        workflowType: { name: init.workflowType },
        taskQueue: { name: init.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        input: init.input,
        header: init.header,
        workflowExecutionTimeout: msToDuration(init.executionTimeoutMs),
        workflowRunTimeout: msToDuration(init.runTimeoutMs),
        workflowTaskTimeout: msToDuration(init.taskTimeoutMs),
        continuedExecutionRunId: init.continuedExecutionRunId ?? '',
        initiator: init.initiator,
        continuedFailure: init.continuedFailure,
        lastCompletionResult: init.lastCompletionResult,
        originalExecutionRunId: init.runId,
        firstExecutionRunId: init.firstExecutionRunId,
        identity: init.identity,
        retryPolicy: init.retryPolicy,
        attempt: init.attempt,
        workflowExecutionExpirationTime: init.executionExpirationTime ? msToTimestamp(init.executionExpirationTime) : null,
        firstWorkflowTaskBackoff: init.firstWorkflowTaskBackoffMs ? msToDuration(init.firstWorkflowTaskBackoffMs) : null,
        memo: init.memo,
        searchAttributes: init.searchAttributes,
        parentWorkflowNamespace: init.parent ? this.host.namespace : '',
        parentWorkflowExecution: init.parent?.run.execution,
        parentInitiatedEventId: int64(init.parent?.initiatedEventId ?? 0),
      },
    });
    if (firstSignal) this.writeEvents([signalEvent(firstSignal)], this.host.clock.now());
    this.armRunTimeout();
    if (init.firstWorkflowTaskBackoffMs > 0) {
      this.workflowTasks.scheduleFirstAfter(init.firstWorkflowTaskBackoffMs);
    } else {
      this.workflowTasks.request();
    }
  }

  private armRunTimeout(): void {
    const deadline = this.runDeadline();
    if (deadline) this.runTimeoutTimer = this.host.clock.schedule(deadline, () => this.timeOut());
  }

  private runDeadline(): number {
    const candidates = [
      this.init.runTimeoutMs > 0 ? this.startTime + this.init.runTimeoutMs : 0,
      this.init.executionExpirationTime,
    ].filter((value) => value > 0);
    return candidates.length > 0 ? Math.min(...candidates) : 0;
  }

  signal(request: { signalName: string; input?: Payloads | null; header?: Header | null; identity: string; externalExecution?: temporal.api.common.v1.IWorkflowExecution }): void {
    this.appendOrBuffer([signalEvent(request)], true);
  }

  /** Records a cancellation request; the workflow decides how to finish. */
  requestCancel(request: { identity: string; reason: string; externalInitiatedEventId?: number; externalExecution?: temporal.api.common.v1.IWorkflowExecution }): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    this.appendOrBuffer(
      [
        {
          eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
          attributes: {
            workflowExecutionCancelRequestedEventAttributes: {
              cause: request.reason,
              identity: request.identity,
              externalInitiatedEventId: int64(request.externalInitiatedEventId ?? 0),
              externalWorkflowExecution: request.externalExecution,
            },
          },
        },
      ],
      true,
    );
  }

  terminate(reason: string, details: Payloads | null | undefined, identity: string): void {
    this.workflowTasks.failStartedForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, {
      workflowExecutionTerminatedEventAttributes: { reason, details, identity },
    });
    this.close();
  }

  private timeOut(): void {
    if (!this.isRunning) return;
    this.workflowTasks.failStartedForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, {
      workflowExecutionTimedOutEventAttributes: { retryState: RetryState.RETRY_STATE_TIMEOUT },
    });
    this.close();
  }

  /** After a closing event (which set the run's status): releases everything the run holds. */
  close(): void {
    this.workflowTasks.clear();
    this.runTimeoutTimer?.cancel();
    for (const timer of this.timers.values()) timer.handle?.cancel();
    this.timers.clear();
    this.activities.clear();
    this.host.runClosed(this);
    this.host.historyGrew(this);
    for (const release of this.queriesAwaitingTask.splice(0)) release();
  }

  // ---------------------------------------------------------------- timers

  startTimer(timerId: string, durationMs: number, completedEventId: number): void {
    const started = this.addEvent(EventType.EVENT_TYPE_TIMER_STARTED, {
      timerStartedEventAttributes: { timerId, startToFireTimeout: msToDuration(durationMs), workflowTaskCompletedEventId: int64(completedEventId) },
    });
    if (this.timers.get(timerId)?.startedEventId === eventNumber(started)) this.armTimer(timerId);
  }

  /** Fires the started timer `timerId` at its time (at once if that has passed). */
  private armTimer(timerId: string): void {
    const timer = this.timers.get(timerId);
    if (!timer) return;
    const { startedEventId } = timer;
    timer.handle = this.host.clock.schedule(timer.firesAt, () => {
      if (this.timers.get(timerId)?.startedEventId !== startedEventId) return;
      this.timers.delete(timerId);
      this.appendOrBuffer(
        [{ eventType: EventType.EVENT_TYPE_TIMER_FIRED, attributes: { timerFiredEventAttributes: { timerId, startedEventId: int64(startedEventId) } } }],
        true,
      );
    });
  }

  /** Cancels a started timer, or one that fired while the canceling workflow task ran (its fire not yet written). */
  cancelTimer(timerId: string, completedEventId: number, identity: string): boolean {
    const timer = this.timers.get(timerId);
    timer?.handle?.cancel();
    const startedEventId = timer?.startedEventId ?? this.workflowTasks.unbufferTimerFired(timerId);
    if (startedEventId === undefined) return false;
    this.addEvent(EventType.EVENT_TYPE_TIMER_CANCELED, {
      timerCanceledEventAttributes: {
        timerId,
        startedEventId: int64(startedEventId),
        workflowTaskCompletedEventId: int64(completedEventId),
        identity,
      },
    });
    return true;
  }
}

function encodedSize(event: HistoryEvent): number {
  return temporal.api.history.v1.HistoryEvent.encode(event).finish().length;
}

function signalEvent(request: {
  signalName: string;
  input?: Payloads | null;
  header?: Header | null;
  identity: string;
  externalExecution?: temporal.api.common.v1.IWorkflowExecution;
}): PendingEvent {
  return {
    eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    attributes: {
      workflowExecutionSignaledEventAttributes: {
        signalName: request.signalName,
        input: request.input,
        header: request.header,
        identity: request.identity,
        externalWorkflowExecution: request.externalExecution,
      },
    },
  };
}

/** How a closing event ended the run; undefined for other events. */
function outcomeOf(event: HistoryEvent): RunOutcome | undefined {
  switch (event.eventType) {
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
      return { status: 'completed', result: event.workflowExecutionCompletedEventAttributes?.result };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: {
      const attributes = event.workflowExecutionFailedEventAttributes ?? {};
      return { status: 'failed', failure: attributes.failure, retryState: attributes.retryState ?? RetryState.RETRY_STATE_UNSPECIFIED };
    }
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
      return { status: 'canceled', details: event.workflowExecutionCanceledEventAttributes?.details };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
      return { status: 'terminated' };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
      return { status: 'timedOut', retryState: event.workflowExecutionTimedOutEventAttributes?.retryState ?? RetryState.RETRY_STATE_TIMEOUT };
    case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
      return { status: 'continuedAsNew', newRunId: event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? '' };
    default:
      return undefined;
  }
}

const childCloseAttributes = [
  'startChildWorkflowExecutionFailedEventAttributes',
  'childWorkflowExecutionCompletedEventAttributes',
  'childWorkflowExecutionFailedEventAttributes',
  'childWorkflowExecutionCanceledEventAttributes',
  'childWorkflowExecutionTerminatedEventAttributes',
  'childWorkflowExecutionTimedOutEventAttributes',
] as const;

function childInitiatedEventId(event: HistoryEvent): number {
  for (const key of childCloseAttributes) {
    const attributes = event[key];
    if (attributes) return toNumber(attributes.initiatedEventId);
  }
  return 0;
}

const activityOutcomeAttributes = [
  'activityTaskCompletedEventAttributes',
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCanceledEventAttributes',
] as const;

/**
 * Resolves the references a buffered event could not know when it was produced: the id of the
 * ActivityTaskStarted written just before an activity outcome, and the started event of a child whose close
 * was reported while its ChildWorkflowExecutionStarted was still buffered.
 */
function withReferences(run: WorkflowRun, attributes: HistoryEvent, previous: HistoryEvent | undefined): HistoryEvent {
  if (previous?.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
    for (const key of activityOutcomeAttributes) {
      const outcome = attributes[key];
      if (outcome) return { ...attributes, [key]: { ...outcome, startedEventId: previous.eventId } };
    }
  }
  for (const key of childCloseAttributes.slice(1)) {
    const close = attributes[key] as { initiatedEventId?: unknown; startedEventId?: unknown } | null | undefined;
    if (close && toNumber(close.startedEventId as number) === 0) {
      const initiatedEventId = toNumber(close.initiatedEventId as number);
      const started = run.history.find(
        (event) =>
          event.eventType === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED &&
          toNumber(event.childWorkflowExecutionStartedEventAttributes?.initiatedEventId) === initiatedEventId,
      );
      if (started) return { ...attributes, [key]: { ...close, startedEventId: started.eventId } };
    }
  }
  return attributes;
}

/** The RunInit of a stored run, read from its WorkflowExecutionStarted event. */
export function runInitFromHistory(history: HistoryEvent[], runId: string, requestId: string, parentRun: WorkflowRun | undefined): RunInit {
  const started = history[0];
  const attributes = started?.workflowExecutionStartedEventAttributes;
  if (!started || !attributes) throw new Error(`run ${runId}: history does not begin with WorkflowExecutionStarted`);
  return {
    workflowId: attributes.workflowId ?? '',
    runId,
    workflowType: attributes.workflowType?.name ?? '',
    taskQueue: attributes.taskQueue?.name ?? '',
    input: attributes.input,
    header: attributes.header,
    memo: attributes.memo,
    searchAttributes: attributes.searchAttributes,
    executionTimeoutMs: durationToMs(attributes.workflowExecutionTimeout),
    runTimeoutMs: durationToMs(attributes.workflowRunTimeout),
    taskTimeoutMs: durationToMs(attributes.workflowTaskTimeout),
    executionExpirationTime: timestampToMs(attributes.workflowExecutionExpirationTime),
    identity: attributes.identity ?? '',
    requestId,
    retryPolicy: attributes.retryPolicy,
    attempt: attributes.attempt || 1,
    firstExecutionRunId: attributes.firstExecutionRunId || runId,
    continuedExecutionRunId: attributes.continuedExecutionRunId || undefined,
    initiator: attributes.initiator || undefined,
    continuedFailure: attributes.continuedFailure,
    lastCompletionResult: attributes.lastCompletionResult,
    firstWorkflowTaskBackoffMs: durationToMs(attributes.firstWorkflowTaskBackoff),
    parent: parentRun ? { run: parentRun, initiatedEventId: toNumber(attributes.parentInitiatedEventId) } : undefined,
  };
}
