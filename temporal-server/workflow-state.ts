/**
 * Mutable state of one workflow run in the in-memory service, and the history it writes.
 *
 * The run owns its event history, its lifecycle (start, signals, cancel requests, termination, timeout,
 * close), its timers and child workflows. Its workflow tasks and the events buffered during them are in
 * run-workflow-tasks.ts, its activities in run-activities.ts. Everything that crosses runs (task queues,
 * children, continue-as-new, visibility) goes through the RunHost.
 */
import { type ScheduledTimer, type VirtualClock } from './clock';
import { eventNumber, newEvent } from './history-events';
import {
  EventType,
  type Failure,
  type HistoryEvent,
  int64,
  msToDuration,
  msToTimestamp,
  type Payloads,
  RetryState,
  temporal,
  WorkflowExecutionStatus,
} from './proto';
import { type PendingActivity, RunActivities } from './run-activities';
import { WorkflowTasks } from './run-workflow-tasks';

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
  status: WorkflowExecutionStatus = WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  outcome?: RunOutcome;
  readonly startTime: number;
  closeTime?: number;
  memo: temporal.api.common.v1.IMemo;
  searchAttributes: temporal.api.common.v1.ISearchAttributes;
  /** The run's workflow tasks, and the events buffered while one is started. */
  readonly workflowTasks = new WorkflowTasks(this);
  readonly activities = new RunActivities(this);
  readonly timers = new Map<string, { startedEventId: number; handle: ScheduledTimer }>();
  readonly children = new Map<number, PendingChild>();
  /** Number of legacy queries waiting for, or being answered by, a worker. */
  pendingQueries = 0;
  /** Query tasks waiting for the current workflow task to finish before they can be dispatched. */
  readonly queriesAwaitingTask: (() => void)[] = [];
  cancelRequested = false;
  private runTimeoutTimer?: ScheduledTimer;
  private requestIds = new Set<string>();

  constructor(
    readonly host: RunHost,
    readonly init: RunInit,
  ) {
    this.startTime = host.clock.now();
    this.memo = init.memo ?? {};
    this.searchAttributes = init.searchAttributes ?? {};
    this.requestIds.add(init.requestId);
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
    return requestId !== '' && this.requestIds.has(requestId);
  }

  rememberRequest(requestId: string): void {
    if (requestId) this.requestIds.add(requestId);
  }

  // ---------------------------------------------------------------- history

  /** Appends an event now (use appendOrBuffer for events that may arrive during a workflow task). */
  addEvent(eventType: EventType, attributes: HistoryEvent, time = this.host.clock.now()): HistoryEvent {
    const event = newEvent(this.nextEventId, eventType, attributes, time);
    this.history.push(event);
    this.host.historyGrew(this);
    return event;
  }

  /**
   * Writes events now, or — while a workflow task is started — after that task's completion events.
   * `triggersTask` asks for a new workflow task once written.
   */
  appendOrBuffer(write: (time: number) => void, triggersTask: boolean): void {
    this.workflowTasks.appendOrBuffer(write, triggersTask);
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
    if (firstSignal) this.writeSignal(firstSignal, this.host.clock.now());
    const deadline = this.runDeadline();
    if (deadline) this.runTimeoutTimer = this.host.clock.schedule(deadline, () => this.timeOut());
    if (init.firstWorkflowTaskBackoffMs > 0) {
      this.workflowTasks.scheduleFirstAfter(init.firstWorkflowTaskBackoffMs);
    } else {
      this.workflowTasks.request();
    }
  }

  private runDeadline(): number {
    const candidates = [
      this.init.runTimeoutMs > 0 ? this.startTime + this.init.runTimeoutMs : 0,
      this.init.executionExpirationTime,
    ].filter((value) => value > 0);
    return candidates.length > 0 ? Math.min(...candidates) : 0;
  }

  signal(request: { signalName: string; input?: Payloads | null; header?: Header | null; identity: string; externalExecution?: temporal.api.common.v1.IWorkflowExecution }): void {
    this.appendOrBuffer((time) => this.writeSignal(request, time), true);
  }

  private writeSignal(
    request: { signalName: string; input?: Payloads | null; header?: Header | null; identity: string; externalExecution?: temporal.api.common.v1.IWorkflowExecution },
    time: number,
  ): void {
    this.addEvent(
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
      {
        workflowExecutionSignaledEventAttributes: {
          signalName: request.signalName,
          input: request.input,
          header: request.header,
          identity: request.identity,
          externalWorkflowExecution: request.externalExecution,
        },
      },
      time,
    );
  }

  /** Records a cancellation request; the workflow decides how to finish. */
  requestCancel(request: { identity: string; reason: string; externalInitiatedEventId?: number; externalExecution?: temporal.api.common.v1.IWorkflowExecution }): void {
    if (this.cancelRequested) return;
    this.cancelRequested = true;
    this.appendOrBuffer((time) => {
      this.addEvent(
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
        {
          workflowExecutionCancelRequestedEventAttributes: {
            cause: request.reason,
            identity: request.identity,
            externalInitiatedEventId: int64(request.externalInitiatedEventId ?? 0),
            externalWorkflowExecution: request.externalExecution,
          },
        },
        time,
      );
    }, true);
  }

  terminate(reason: string, details: Payloads | null | undefined, identity: string): void {
    this.workflowTasks.failStartedForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, {
      workflowExecutionTerminatedEventAttributes: { reason, details, identity },
    });
    this.close({ status: 'terminated' });
  }

  private timeOut(): void {
    if (!this.isRunning) return;
    this.workflowTasks.failStartedForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, {
      workflowExecutionTimedOutEventAttributes: { retryState: RetryState.RETRY_STATE_TIMEOUT },
    });
    this.close({ status: 'timedOut', retryState: RetryState.RETRY_STATE_TIMEOUT });
  }

  /** Moves the run to a closed status and releases everything it holds. */
  close(outcome: RunOutcome): void {
    this.outcome = outcome;
    this.status = statusByOutcome[outcome.status];
    this.closeTime = this.host.clock.now();
    this.workflowTasks.clear();
    this.runTimeoutTimer?.cancel();
    for (const timer of this.timers.values()) timer.handle.cancel();
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
    const startedEventId = eventNumber(started);
    const handle = this.host.clock.after(durationMs, () => {
      if (this.timers.get(timerId)?.startedEventId !== startedEventId) return;
      this.timers.delete(timerId);
      this.appendOrBuffer((time) => {
        this.addEvent(EventType.EVENT_TYPE_TIMER_FIRED, { timerFiredEventAttributes: { timerId, startedEventId: int64(startedEventId) } }, time);
      }, true);
    });
    this.timers.set(timerId, { startedEventId, handle });
  }

  cancelTimer(timerId: string, completedEventId: number, identity: string): boolean {
    const timer = this.timers.get(timerId);
    if (!timer) return false;
    timer.handle.cancel();
    this.timers.delete(timerId);
    this.addEvent(EventType.EVENT_TYPE_TIMER_CANCELED, {
      timerCanceledEventAttributes: {
        timerId,
        startedEventId: int64(timer.startedEventId),
        workflowTaskCompletedEventId: int64(completedEventId),
        identity,
      },
    });
    return true;
  }
}
