/**
 * Mutable state of one workflow run in the in-memory service, and the history it writes.
 *
 * The run owns its event history, its workflow task (scheduled → started → completed / failed / timed out),
 * its timers, pending activities and child workflows. Events that happen while a workflow task is started
 * are buffered and written after that task's completion events, as the Temporal server does. Everything
 * that crosses runs (task queues, children, continue-as-new, visibility) goes through the RunHost.
 *
 * Workflow tasks follow the server's rules for stickiness and retries: after a completion that asks for a
 * sticky queue, later tasks go to that worker's queue carrying only the events after the previous started
 * event (falling back to the normal queue with full history when that worker stops polling, its
 * schedule-to-start timeout passes, or stickiness is reset); a failed or timed-out task writes its events
 * once, and the retries that follow are transient — their Scheduled/Started events reach the worker but are
 * written to history only when an attempt completes.
 */
import { randomUUID } from 'node:crypto';
import { type ScheduledTimer, type VirtualClock } from './clock';
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
  TimeoutType,
  toNumber,
  WorkflowExecutionStatus,
} from './proto';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;
type PollActivityTaskResponse = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;
type Header = temporal.api.common.v1.IHeader;

/** What a run needs from the service around it. */
export interface RunHost {
  readonly clock: VirtualClock;
  readonly namespace: string;
  /** Offers the run's scheduled workflow task to pollers of `taskQueue`; `dispatch` identifies the offer. */
  enqueueWorkflowTask(run: WorkflowRun, taskQueue: string, dispatch: number): void;
  /** Whether the worker behind a sticky queue is polling it (or did recently). */
  stickyQueueLive(taskQueue: string): boolean;
  /** Offers an activity attempt to pollers of the activity's task queue. */
  enqueueActivityTask(run: WorkflowRun, activity: PendingActivity): void;
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

/** Normalised activity retry policy (defaults applied as the server does). */
export interface ActivityRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
  nonRetryableErrorTypes: string[];
}

export interface PendingActivity {
  scheduledEventId: number;
  activityId: string;
  activityType: string;
  taskQueue: string;
  input?: Payloads | null;
  header?: Header | null;
  scheduleToCloseMs: number;
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number;
  retryPolicy: ActivityRetryPolicy;
  attempt: number;
  firstScheduledTime: number;
  currentAttemptScheduledTime: number;
  state: 'scheduled' | 'started' | 'backoff';
  startedTime?: number;
  startedIdentity?: string;
  requestId?: string;
  heartbeatDetails?: Payloads | null;
  lastHeartbeatTime?: number;
  lastFailure?: Failure | null;
  cancelRequestedEventId?: number;
  attemptTimers: ScheduledTimer[];
  heartbeatTimer?: ScheduledTimer;
  scheduleToCloseTimer?: ScheduledTimer;
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

interface WorkflowTaskState {
  /** For a transient task, the id its Scheduled event will take. */
  scheduledEventId: number;
  startedEventId?: number;
  attempt: number;
  /** A retry whose Scheduled/Started events are not in history (yet). */
  transient: boolean;
  /** Scheduled and Started events of a started transient task, written only if it completes. */
  transientEvents?: HistoryEvent[];
  /** The sticky queue the task is offered on; undefined for the normal queue. */
  stickyQueue?: string;
  /** Counts offers to a queue; an offer whose number is not current is stale. */
  dispatch: number;
  scheduledTime: number;
  startedTime?: number;
  timeoutTimer?: ScheduledTimer;
  scheduleToStartTimer?: ScheduledTimer;
}

/** The sticky queue of the worker that completed the last workflow task, as it asked for. */
interface Stickiness {
  taskQueue: string;
  scheduleToStartMs: number;
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

let nextTaskId = 1;

/** The token identifying one workflow task, activity attempt or query handed to a worker. */
export interface TaskToken {
  kind: 'workflow' | 'activity' | 'query';
  workflowId: string;
  runId: string;
  /** Scheduled event id (workflow task, activity) or query id. */
  id: number;
  attempt: number;
}

export function encodeTaskToken(token: TaskToken): Buffer {
  return Buffer.from(JSON.stringify(token));
}

export function decodeTaskToken(bytes: Uint8Array | null | undefined): TaskToken | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(bytes ?? []).toString('utf8')) as TaskToken;
    return typeof parsed.workflowId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export class WorkflowRun {
  readonly history: HistoryEvent[] = [];
  status: WorkflowExecutionStatus = WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  outcome?: RunOutcome;
  readonly startTime: number;
  closeTime?: number;
  memo: temporal.api.common.v1.IMemo;
  searchAttributes: temporal.api.common.v1.ISearchAttributes;
  workflowTask?: WorkflowTaskState;
  /** Started event id of the last successfully completed workflow task. */
  previousStartedEventId = 0;
  sticky?: Stickiness;
  readonly activities = new Map<number, PendingActivity>();
  readonly activityIds = new Map<string, number>();
  readonly timers = new Map<string, { startedEventId: number; handle: ScheduledTimer }>();
  readonly children = new Map<number, PendingChild>();
  /** Number of legacy queries waiting for, or being answered by, a worker. */
  pendingQueries = 0;
  /** Query tasks waiting for the current workflow task to finish before they can be dispatched. */
  readonly queriesAwaitingTask: (() => void)[] = [];
  cancelRequested = false;
  private buffered: { time: number; write: (time: number) => void; triggersTask: boolean }[] = [];
  private completing = false;
  private workflowTaskWanted = false;
  private afterCompletion: (() => void)[] = [];
  private runTimeoutTimer?: ScheduledTimer;
  private backoffTimer?: ScheduledTimer;
  private requestIds = new Set<string>();
  private readonly eagerActivityTasks: PollActivityTaskResponse[] = [];

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
    if (this.workflowTask) return true;
    for (const activity of this.activities.values()) if (activity.state !== 'backoff') return true;
    return false;
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
    const time = this.host.clock.now();
    if (this.workflowTask?.startedEventId !== undefined && !this.completing) {
      this.buffered.push({ time, write, triggersTask });
      return;
    }
    write(time);
    if (triggersTask) this.requestWorkflowTask();
  }

  get hasBufferedEvents(): boolean {
    return this.buffered.length > 0;
  }

  private flushBuffered(): void {
    const buffered = this.buffered;
    this.buffered = [];
    for (const entry of buffered) {
      entry.write(entry.time);
      if (entry.triggersTask) this.workflowTaskWanted = true;
    }
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
      this.backoffTimer = this.host.clock.after(init.firstWorkflowTaskBackoffMs, () => this.requestWorkflowTask());
    } else {
      this.requestWorkflowTask();
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
    this.failStartedTaskForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, {
      workflowExecutionTerminatedEventAttributes: { reason, details, identity },
    });
    this.close({ status: 'terminated' });
  }

  private timeOut(): void {
    if (!this.isRunning) return;
    this.failStartedTaskForClose();
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, {
      workflowExecutionTimedOutEventAttributes: { retryState: RetryState.RETRY_STATE_TIMEOUT },
    });
    this.close({ status: 'timedOut', retryState: RetryState.RETRY_STATE_TIMEOUT });
  }

  /** A forced close while a workflow task is started ends that task first, then writes buffered events. */
  private failStartedTaskForClose(): void {
    const task = this.workflowTask;
    if (task?.startedEventId !== undefined && !task.transient) {
      this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId),
          cause: temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
        },
      });
    }
    this.flushBuffered();
  }

  /** Moves the run to a closed status and releases everything it holds. */
  close(outcome: RunOutcome): void {
    this.outcome = outcome;
    this.status = statusByOutcome[outcome.status];
    this.closeTime = this.host.clock.now();
    this.workflowTask?.timeoutTimer?.cancel();
    this.workflowTask?.scheduleToStartTimer?.cancel();
    this.workflowTask = undefined;
    this.sticky = undefined;
    this.runTimeoutTimer?.cancel();
    this.backoffTimer?.cancel();
    for (const timer of this.timers.values()) timer.handle.cancel();
    this.timers.clear();
    for (const activity of this.activities.values()) this.clearActivityTimers(activity, true);
    this.activities.clear();
    this.activityIds.clear();
    this.buffered = [];
    this.afterCompletion = [];
    this.host.runClosed(this);
    this.host.historyGrew(this);
    for (const release of this.queriesAwaitingTask.splice(0)) release();
  }

  // ---------------------------------------------------------------- workflow tasks

  /** Schedules a workflow task unless one is already scheduled; during a started task, one follows it. */
  requestWorkflowTask(): void {
    if (!this.isRunning) return;
    if (this.completing || this.workflowTask?.startedEventId !== undefined) {
      this.workflowTaskWanted = true;
      return;
    }
    if (this.workflowTask) return;
    this.backoffTimer?.cancel();
    this.scheduleWorkflowTask(1);
  }

  /**
   * Schedules attempt `attempt`: a first attempt writes WorkflowTaskScheduled, a retry (attempt > 1) is
   * transient. The task goes to the sticky queue while its worker is live, else to the normal queue.
   */
  private scheduleWorkflowTask(attempt: number): void {
    if (this.sticky && !this.host.stickyQueueLive(this.sticky.taskQueue)) this.sticky = undefined;
    const transient = attempt > 1;
    const scheduledTime = this.host.clock.now();
    const scheduledEventId = transient
      ? this.nextEventId
      : eventNumber(this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, this.scheduledAttributes(attempt), scheduledTime));
    this.workflowTask = { scheduledEventId, attempt, transient, scheduledTime, dispatch: 0 };
    this.dispatchWorkflowTask(this.workflowTask);
  }

  private scheduledAttributes(attempt: number): HistoryEvent {
    const taskQueue = this.sticky
      ? { name: this.sticky.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: this.init.taskQueue }
      : { name: this.init.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
    return {
      workflowTaskScheduledEventAttributes: { taskQueue, startToCloseTimeout: msToDuration(this.init.taskTimeoutMs), attempt },
    };
  }

  /** Offers the scheduled task to the sticky queue (with its schedule-to-start timeout) or the normal one. */
  private dispatchWorkflowTask(task: WorkflowTaskState): void {
    task.dispatch += 1;
    task.stickyQueue = this.sticky?.taskQueue;
    task.scheduleToStartTimer?.cancel();
    task.scheduleToStartTimer = undefined;
    if (this.sticky && this.sticky.scheduleToStartMs > 0) {
      const dispatch = task.dispatch;
      task.scheduleToStartTimer = this.host.clock.after(this.sticky.scheduleToStartMs, () => this.stickyScheduleToStartTimedOut(task, dispatch));
    }
    this.host.enqueueWorkflowTask(this, task.stickyQueue ?? this.init.taskQueue, task.dispatch);
  }

  /** The sticky worker did not pick the task up in time: WorkflowTaskTimedOut, then a task on the normal queue. */
  private stickyScheduleToStartTimedOut(task: WorkflowTaskState, dispatch: number): void {
    if (!this.isRunning || this.workflowTask !== task || task.startedEventId !== undefined || task.dispatch !== dispatch) return;
    this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
      workflowTaskTimedOutEventAttributes: {
        scheduledEventId: int64(task.scheduledEventId),
        startedEventId: int64(0),
        timeoutType: TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
      },
    });
    this.retryWorkflowTask(task, false);
  }

  /**
   * Stops sending this run's tasks to a sticky queue (ResetStickyTaskQueue, or its worker shut down); a task
   * waiting there moves to the normal queue.
   */
  resetStickiness(): void {
    this.sticky = undefined;
    const task = this.workflowTask;
    if (this.isRunning && task && task.startedEventId === undefined && task.stickyQueue !== undefined) this.dispatchWorkflowTask(task);
  }

  /**
   * Starts the scheduled workflow task for a poller; undefined if the offer `dispatch` is stale. A sticky
   * task carries the events after the previous started event, a normal one the whole history; a transient
   * task's Scheduled/Started events are appended to what is sent without entering history.
   */
  startWorkflowTask(identity: string, dispatch: number): PollWorkflowTaskResponse | undefined {
    const task = this.workflowTask;
    if (!this.isRunning || !task || task.startedEventId !== undefined || task.dispatch !== dispatch) return undefined;
    task.scheduleToStartTimer?.cancel();
    const now = this.host.clock.now();
    if (task.transient && task.scheduledEventId !== this.nextEventId) {
      // New events since the retry was scheduled: it becomes a normal first attempt, as on the server.
      task.transient = false;
      task.attempt = 1;
      task.scheduledEventId = eventNumber(this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, this.scheduledAttributes(1), now));
    }
    const startedAttributes: HistoryEvent = {
      workflowTaskStartedEventAttributes: {
        scheduledEventId: int64(task.scheduledEventId),
        identity,
        requestId: randomUUID(),
        historySizeBytes: int64(0),
      },
    };
    let transientEvents: HistoryEvent[] = [];
    if (task.transient) {
      transientEvents = [
        newEvent(task.scheduledEventId, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, this.scheduledAttributes(task.attempt), task.scheduledTime),
        newEvent(task.scheduledEventId + 1, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, startedAttributes, now),
      ];
      task.transientEvents = transientEvents;
      task.startedEventId = task.scheduledEventId + 1;
    } else {
      task.startedEventId = eventNumber(this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, startedAttributes, now));
    }
    task.startedTime = now;
    const token: TaskToken = { kind: 'workflow', workflowId: this.workflowId, runId: this.runId, id: task.scheduledEventId, attempt: task.attempt };
    task.timeoutTimer = this.host.clock.after(this.init.taskTimeoutMs, () => this.timeOutWorkflowTask(token));
    const firstEventIndex = task.stickyQueue !== undefined ? this.previousStartedEventId : 0;
    return {
      taskToken: encodeTaskToken(token),
      workflowExecution: this.execution,
      workflowType: { name: this.init.workflowType },
      previousStartedEventId: int64(this.previousStartedEventId),
      startedEventId: int64(task.startedEventId),
      attempt: task.attempt,
      history: { events: this.history.slice(firstEventIndex).concat(transientEvents) },
      workflowExecutionTaskQueue: { name: this.init.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      scheduledTime: msToTimestamp(task.scheduledTime),
      startedTime: msToTimestamp(now),
    };
  }

  /** The started workflow task the token refers to, if it is still current. */
  currentWorkflowTask(token: TaskToken): WorkflowTaskState | undefined {
    const task = this.workflowTask;
    if (!this.isRunning || !task || task.startedEventId === undefined) return undefined;
    if (task.scheduledEventId !== token.id || task.attempt !== token.attempt) return undefined;
    return task;
  }

  /**
   * Completes the started workflow task: writes WorkflowTaskCompleted, lets `applyCommands` write the
   * commands' events, then the buffered events, then schedules the next task if anything asks for one.
   * A completion that would close the workflow while events are buffered is refused (UNHANDLED_COMMAND).
   */
  completeWorkflowTask(
    request: temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest,
    closesWorkflow: boolean,
    applyCommands: (completedEventId: number) => void,
  ): void {
    const task = this.workflowTask!;
    task.timeoutTimer?.cancel();
    if (closesWorkflow && this.buffered.length > 0) {
      this.failWorkflowTask(
        task,
        temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
        { message: 'Workflow completion refused: new events arrived during the workflow task' },
        request.identity ?? '',
      );
      return;
    }
    this.completing = true;
    try {
      for (const event of task.transientEvents ?? []) this.history.push(event);
      const completed = this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, {
        workflowTaskCompletedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          identity: request.identity,
          binaryChecksum: request.binaryChecksum,
          sdkMetadata: request.sdkMetadata,
          meteringMetadata: request.meteringMetadata,
        },
      });
      this.previousStartedEventId = task.startedEventId ?? 0;
      const stickyQueue = request.stickyAttributes?.workerTaskQueue?.name;
      this.sticky = stickyQueue
        ? { taskQueue: stickyQueue, scheduleToStartMs: durationToMs(request.stickyAttributes?.scheduleToStartTimeout) }
        : undefined;
      this.workflowTask = undefined;
      this.workflowTaskWanted = false;
      applyCommands(eventNumber(completed));
      if (!this.isRunning) return;
      this.flushBuffered();
    } finally {
      this.completing = false;
    }
    const followUps = this.afterCompletion;
    this.afterCompletion = [];
    if (this.workflowTaskWanted || request.forceCreateNewWorkflowTask) {
      this.workflowTaskWanted = false;
      this.requestWorkflowTask();
    }
    for (const followUp of followUps) followUp();
  }

  /** Runs `action` once the current workflow task completion has been written (children, external signals). */
  deferUntilCompleted(action: () => void): void {
    this.afterCompletion.push(action);
  }

  /** Fails the started workflow task (worker report or server refusal) and schedules the next attempt. */
  failWorkflowTask(
    task: WorkflowTaskState,
    cause: temporal.api.enums.v1.WorkflowTaskFailedCause,
    failure: Failure | null | undefined,
    identity: string,
  ): void {
    task.timeoutTimer?.cancel();
    if (!task.transient) {
      this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          cause,
          failure,
          identity,
        },
      });
    }
    this.retryWorkflowTask(task, true);
  }

  private timeOutWorkflowTask(token: TaskToken): void {
    const task = this.currentWorkflowTask(token);
    if (!task) return;
    if (!task.transient) {
      this.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
        workflowTaskTimedOutEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
        },
      });
    }
    this.retryWorkflowTask(task, true);
  }

  /**
   * Schedules the task after a failed or timed-out one. As on the server: a task that failed on a sticky
   * queue is retried once on the normal queue as a first attempt, and events that arrived meanwhile make the
   * retry a normal (non-transient) first attempt too; otherwise the attempt number grows.
   */
  private retryWorkflowTask(task: WorkflowTaskState, incrementAttempt: boolean): void {
    const wasSticky = this.sticky !== undefined;
    this.sticky = undefined;
    this.workflowTask = undefined;
    const hadBuffered = this.buffered.length > 0;
    this.flushBuffered();
    this.workflowTaskWanted = false;
    this.scheduleWorkflowTask(incrementAttempt && !wasSticky && !hadBuffered ? task.attempt + 1 : 1);
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

  // ---------------------------------------------------------------- activities

  /**
   * Registers a scheduled activity (its ActivityTaskScheduled event is already written) and dispatches it,
   * or — eager execution — starts it for `eagerIdentity`, the worker completing the current workflow task.
   */
  addActivity(activity: PendingActivity, eagerIdentity?: string): void {
    this.activities.set(activity.scheduledEventId, activity);
    this.activityIds.set(activity.activityId, activity.scheduledEventId);
    if (activity.scheduleToCloseMs > 0) {
      activity.scheduleToCloseTimer = this.host.clock.schedule(activity.firstScheduledTime + activity.scheduleToCloseMs, () =>
        this.timeOutActivity(activity, activity.attempt, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE),
      );
    }
    if (eagerIdentity === undefined) {
      this.dispatchActivityAttempt(activity);
      return;
    }
    activity.state = 'scheduled';
    const task = this.startActivity(activity.scheduledEventId, activity.attempt, eagerIdentity);
    if (task) this.eagerActivityTasks.push(task);
  }

  /** Activity tasks started eagerly by the workflow task completion in progress; empties the list. */
  takeEagerActivityTasks(): PollActivityTaskResponse[] {
    return this.eagerActivityTasks.splice(0);
  }

  private dispatchActivityAttempt(activity: PendingActivity): void {
    activity.state = 'scheduled';
    activity.currentAttemptScheduledTime = this.host.clock.now();
    if (activity.scheduleToStartMs > 0) {
      const attempt = activity.attempt;
      activity.attemptTimers.push(
        this.host.clock.after(activity.scheduleToStartMs, () => this.timeOutActivity(activity, attempt, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)),
      );
    }
    this.host.enqueueActivityTask(this, activity);
  }

  /** The pending activity attempt a token refers to, if still current. */
  activityFor(token: TaskToken): PendingActivity | undefined {
    const activity = this.activities.get(token.id);
    if (!activity || activity.attempt !== token.attempt) return undefined;
    return activity;
  }

  /** Hands an activity attempt to a poller; undefined if it is no longer waiting. */
  startActivity(scheduledEventId: number, attempt: number, identity: string): PollActivityTaskResponse | undefined {
    const activity = this.activities.get(scheduledEventId);
    if (!this.isRunning || !activity || activity.attempt !== attempt || activity.state !== 'scheduled') return undefined;
    this.clearActivityTimers(activity, false);
    activity.state = 'started';
    activity.startedTime = this.host.clock.now();
    activity.startedIdentity = identity;
    activity.requestId = randomUUID();
    if (activity.startToCloseMs > 0) {
      activity.attemptTimers.push(
        this.host.clock.after(activity.startToCloseMs, () => this.timeOutActivity(activity, attempt, TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE)),
      );
    }
    this.armHeartbeatTimer(activity);
    const token: TaskToken = { kind: 'activity', workflowId: this.workflowId, runId: this.runId, id: scheduledEventId, attempt };
    return {
      taskToken: encodeTaskToken(token),
      workflowNamespace: this.host.namespace,
      workflowType: { name: this.init.workflowType },
      workflowExecution: this.execution,
      activityType: { name: activity.activityType },
      activityId: activity.activityId,
      header: activity.header,
      input: activity.input,
      heartbeatDetails: activity.heartbeatDetails,
      scheduledTime: msToTimestamp(activity.firstScheduledTime),
      currentAttemptScheduledTime: msToTimestamp(activity.currentAttemptScheduledTime),
      startedTime: msToTimestamp(activity.startedTime),
      attempt,
      scheduleToCloseTimeout: msToDuration(activity.scheduleToCloseMs),
      startToCloseTimeout: msToDuration(activity.startToCloseMs),
      heartbeatTimeout: msToDuration(activity.heartbeatMs),
      retryPolicy: {
        initialInterval: msToDuration(activity.retryPolicy.initialIntervalMs),
        backoffCoefficient: activity.retryPolicy.backoffCoefficient,
        maximumInterval: msToDuration(activity.retryPolicy.maximumIntervalMs),
        maximumAttempts: activity.retryPolicy.maximumAttempts,
        nonRetryableErrorTypes: activity.retryPolicy.nonRetryableErrorTypes,
      },
    };
  }

  private armHeartbeatTimer(activity: PendingActivity): void {
    if (activity.heartbeatMs <= 0) return;
    const attempt = activity.attempt;
    activity.heartbeatTimer?.cancel();
    activity.heartbeatTimer = this.host.clock.after(activity.heartbeatMs, () =>
      this.timeOutActivity(activity, attempt, TimeoutType.TIMEOUT_TYPE_HEARTBEAT),
    );
  }

  /** Records a heartbeat; returns whether cancellation was requested. */
  heartbeatActivity(activity: PendingActivity, details: Payloads | null | undefined): boolean {
    activity.heartbeatDetails = details ?? activity.heartbeatDetails;
    activity.lastHeartbeatTime = this.host.clock.now();
    if (activity.state === 'started') this.armHeartbeatTimer(activity);
    return activity.cancelRequestedEventId !== undefined;
  }

  private clearActivityTimers(activity: PendingActivity, includingScheduleToClose: boolean): void {
    for (const timer of activity.attemptTimers) timer.cancel();
    activity.attemptTimers = [];
    activity.heartbeatTimer?.cancel();
    activity.heartbeatTimer = undefined;
    if (includingScheduleToClose) activity.scheduleToCloseTimer?.cancel();
  }

  private finishActivity(activity: PendingActivity): void {
    this.clearActivityTimers(activity, true);
    this.activities.delete(activity.scheduledEventId);
    this.activityIds.delete(activity.activityId);
  }

  /** Writes ActivityTaskStarted (deferred until the outcome, as the server does) and returns its id. */
  private writeActivityStarted(activity: PendingActivity, snapshot: { identity?: string; requestId?: string; attempt: number; lastFailure?: Failure | null }, time: number): number {
    const started = this.addEvent(
      EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
      {
        activityTaskStartedEventAttributes: {
          scheduledEventId: int64(activity.scheduledEventId),
          identity: snapshot.identity,
          requestId: snapshot.requestId,
          attempt: snapshot.attempt,
          lastFailure: snapshot.lastFailure,
        },
      },
      time,
    );
    return eventNumber(started);
  }

  completeActivity(activity: PendingActivity, result: Payloads | null | undefined, identity: string): void {
    this.finishActivity(activity);
    const snapshot = { identity: activity.startedIdentity, requestId: activity.requestId, attempt: activity.attempt, lastFailure: activity.lastFailure };
    this.appendOrBuffer((time) => {
      const startedEventId = this.writeActivityStarted(activity, snapshot, time);
      this.addEvent(
        EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
        { activityTaskCompletedEventAttributes: { result, scheduledEventId: int64(activity.scheduledEventId), startedEventId: int64(startedEventId), identity } },
        time,
      );
    }, true);
  }

  /** A failed attempt: retried per the retry policy, or written as ActivityTaskFailed. */
  failActivity(activity: PendingActivity, failure: Failure, identity: string, lastHeartbeatDetails?: Payloads | null): void {
    if (lastHeartbeatDetails?.payloads?.length) activity.heartbeatDetails = lastHeartbeatDetails;
    const retry = this.retryDecision(activity, failure);
    if (retry.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
      this.retryActivity(activity, failure, retry.delayMs);
      return;
    }
    this.finishActivity(activity);
    const snapshot = { identity: activity.startedIdentity, requestId: activity.requestId, attempt: activity.attempt, lastFailure: activity.lastFailure };
    this.appendOrBuffer((time) => {
      const startedEventId = this.writeActivityStarted(activity, snapshot, time);
      this.addEvent(
        EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
        {
          activityTaskFailedEventAttributes: {
            failure,
            scheduledEventId: int64(activity.scheduledEventId),
            startedEventId: int64(startedEventId),
            identity,
            retryState: retry.retryState,
          },
        },
        time,
      );
    }, true);
  }

  cancelActivityReported(activity: PendingActivity, details: Payloads | null | undefined, identity: string): void {
    this.finishActivity(activity);
    const snapshot = { identity: activity.startedIdentity, requestId: activity.requestId, attempt: activity.attempt, lastFailure: activity.lastFailure };
    const wasStarted = activity.state === 'started';
    this.appendOrBuffer((time) => {
      const startedEventId = wasStarted ? this.writeActivityStarted(activity, snapshot, time) : 0;
      this.addEvent(
        EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
        {
          activityTaskCanceledEventAttributes: {
            details,
            latestCancelRequestedEventId: int64(activity.cancelRequestedEventId ?? 0),
            scheduledEventId: int64(activity.scheduledEventId),
            startedEventId: int64(startedEventId),
            identity,
          },
        },
        time,
      );
    }, true);
  }

  /** RequestCancelActivityTask: cancels at once unless a worker is running the attempt. */
  requestCancelActivity(scheduledEventId: number, completedEventId: number): boolean {
    const activity = this.activities.get(scheduledEventId);
    if (!activity) return false;
    const requested = this.addEvent(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED, {
      activityTaskCancelRequestedEventAttributes: { scheduledEventId: int64(scheduledEventId), workflowTaskCompletedEventId: int64(completedEventId) },
    });
    activity.cancelRequestedEventId = eventNumber(requested);
    if (activity.state !== 'started') this.cancelActivityReported(activity, null, '');
    return true;
  }

  private retryDecision(activity: PendingActivity, failure: Failure): { retryState: RetryState; delayMs: number } {
    const policy = activity.retryPolicy;
    const info = failure.applicationFailureInfo;
    if (info?.nonRetryable || (info?.type && policy.nonRetryableErrorTypes.includes(info.type))) {
      return { retryState: RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE, delayMs: 0 };
    }
    if (policy.maximumAttempts > 0 && activity.attempt >= policy.maximumAttempts) {
      return { retryState: RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED, delayMs: 0 };
    }
    const explicitDelay = info?.nextRetryDelay ? durationToMs(info.nextRetryDelay) : undefined;
    const delayMs =
      explicitDelay ??
      Math.min(policy.initialIntervalMs * policy.backoffCoefficient ** (activity.attempt - 1), policy.maximumIntervalMs || Infinity);
    if (activity.scheduleToCloseMs > 0 && this.host.clock.now() + delayMs >= activity.firstScheduledTime + activity.scheduleToCloseMs) {
      return { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
    }
    return { retryState: RetryState.RETRY_STATE_IN_PROGRESS, delayMs };
  }

  private retryActivity(activity: PendingActivity, failure: Failure, delayMs: number): void {
    this.clearActivityTimers(activity, false);
    activity.lastFailure = failure;
    activity.attempt += 1;
    activity.state = 'backoff';
    activity.startedTime = undefined;
    activity.attemptTimers.push(this.host.clock.after(delayMs, () => this.dispatchActivityAttempt(activity)));
  }

  private timeOutActivity(activity: PendingActivity, attempt: number, timeoutType: temporal.api.enums.v1.TimeoutType): void {
    if (this.activities.get(activity.scheduledEventId) !== activity || activity.attempt !== attempt || !this.isRunning) return;
    const failure: Failure = {
      message: `activity ${timeoutNames[timeoutType] ?? 'unknown'} timeout`,
      source: 'Server',
      timeoutFailureInfo: { timeoutType, lastHeartbeatDetails: activity.heartbeatDetails },
    };
    const retryable = timeoutType === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE || timeoutType === TimeoutType.TIMEOUT_TYPE_HEARTBEAT;
    const retry = retryable ? this.retryDecision(activity, failure) : { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
    if (retry.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
      this.retryActivity(activity, failure, retry.delayMs);
      return;
    }
    const wasStarted = activity.state === 'started';
    this.finishActivity(activity);
    const snapshot = { identity: activity.startedIdentity, requestId: activity.requestId, attempt: activity.attempt, lastFailure: activity.lastFailure };
    this.appendOrBuffer((time) => {
      const startedEventId = wasStarted ? this.writeActivityStarted(activity, snapshot, time) : 0;
      this.addEvent(
        EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
        {
          activityTaskTimedOutEventAttributes: {
            failure: wasStarted || !activity.lastFailure ? failure : { ...failure, cause: activity.lastFailure },
            scheduledEventId: int64(activity.scheduledEventId),
            startedEventId: int64(startedEventId),
            retryState: retry.retryState,
          },
        },
        time,
      );
    }, true);
  }

  // ---------------------------------------------------------------- describe

  pendingActivityInfos(): temporal.api.workflow.v1.IPendingActivityInfo[] {
    return [...this.activities.values()].map((activity) => ({
      activityId: activity.activityId,
      activityType: { name: activity.activityType },
      state:
        activity.cancelRequestedEventId !== undefined
          ? temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
          : activity.state === 'started'
            ? temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
            : temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
      heartbeatDetails: activity.heartbeatDetails,
      lastHeartbeatTime: activity.lastHeartbeatTime ? msToTimestamp(activity.lastHeartbeatTime) : null,
      lastStartedTime: activity.startedTime ? msToTimestamp(activity.startedTime) : null,
      attempt: activity.attempt,
      maximumAttempts: activity.retryPolicy.maximumAttempts,
      scheduledTime: msToTimestamp(activity.currentAttemptScheduledTime),
      expirationTime: activity.scheduleToCloseMs > 0 ? msToTimestamp(activity.firstScheduledTime + activity.scheduleToCloseMs) : null,
      lastFailure: activity.lastFailure,
      lastWorkerIdentity: activity.startedIdentity ?? '',
    }));
  }

  pendingWorkflowTaskInfo(): temporal.api.workflow.v1.IPendingWorkflowTaskInfo | null {
    const task = this.workflowTask;
    if (!task) return null;
    return {
      state:
        task.startedEventId !== undefined
          ? temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED
          : temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
      scheduledTime: msToTimestamp(task.scheduledTime),
      originalScheduledTime: msToTimestamp(task.scheduledTime),
      startedTime: task.startedTime ? msToTimestamp(task.startedTime) : null,
      attempt: task.attempt,
    };
  }
}

const timeoutNames: Record<number, string> = {
  [TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
  [TimeoutType.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
};

function newEvent(eventId: number, eventType: EventType, attributes: HistoryEvent, time: number): HistoryEvent {
  return { eventId: int64(eventId), eventTime: msToTimestamp(time), eventType, taskId: int64(nextTaskId++), ...attributes };
}

function eventNumber(event: HistoryEvent): number {
  return toNumber(event.eventId);
}
