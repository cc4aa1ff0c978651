/**
 * The activities of one workflow run: each scheduled activity's attempts, their timeouts and retries, and the
 * history events their outcomes write (through the run, so that they are buffered during a workflow task).
 *
 * An attempt is offered to pollers of the activity's task queue (or started eagerly for the worker that
 * scheduled it); a failed or timed-out attempt is retried per the activity's retry policy, and
 * ActivityTaskStarted is written only together with the outcome, as the Temporal server does. Which activities
 * are pending follows the history events (`apply`); each one's current attempt, which history shows only once
 * the activity closes, is its `record()`, kept beside history for a restart.
 */
import { randomUUID } from 'node:crypto';
import { type ScheduledTimer } from './clock';
import { eventNumber, type PendingEvent } from './history-events';
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
  timestampToMs,
  toNumber,
} from './proto';
import { encodeTaskToken, type TaskToken } from './task-tokens';
import { type WorkflowRun } from './workflow-state';

type PollActivityTaskResponse = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;
type Header = temporal.api.common.v1.IHeader;

/** Normalised activity retry policy (defaults applied as the server does). */
export interface ActivityRetryPolicy {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
  nonRetryableErrorTypes: string[];
}

/** A scheduled activity not yet closed, with its current attempt and that attempt's timers. */
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
  /** When a backing-off attempt is offered again. */
  retryAt?: number;
  attemptTimers: ScheduledTimer[];
  heartbeatTimer?: ScheduledTimer;
  scheduleToCloseTimer?: ScheduledTimer;
}

/** A pending activity's current attempt, kept beside history. */
export type ActivityRecord = Pick<
  PendingActivity,
  | 'scheduledEventId'
  | 'attempt'
  | 'state'
  | 'currentAttemptScheduledTime'
  | 'startedTime'
  | 'startedIdentity'
  | 'requestId'
  | 'heartbeatDetails'
  | 'lastHeartbeatTime'
  | 'lastFailure'
  | 'retryAt'
>;

/** What the activities need from their run. */
export type ActivityOwner = Pick<WorkflowRun, 'host' | 'init' | 'isRunning' | 'workflowId' | 'runId' | 'execution' | 'addEvent' | 'appendOrBuffer' | 'touch'>;

const activityOutcomes = new Set<number>([
  EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
]);

export class RunActivities {
  /** Pending activities by scheduled event id. */
  readonly pending = new Map<number, PendingActivity>();
  /** Scheduled event ids by activity id. */
  readonly ids = new Map<string, number>();
  private readonly eagerTasks: PollActivityTaskResponse[] = [];

  constructor(private readonly run: ActivityOwner) {}

  /** Whether an attempt is waiting for a worker or running (not backing off before a retry). */
  get hasWork(): boolean {
    for (const activity of this.pending.values()) if (activity.state !== 'backoff') return true;
    return false;
  }

  /** The run closed: stops every timer and forgets every activity. */
  clear(): void {
    for (const activity of this.pending.values()) this.clearTimers(activity, true);
    this.pending.clear();
    this.ids.clear();
  }

  // ---------------------------------------------------------------- the fold and the record

  /** Folds an activity event into the pending activities (see WorkflowRun.apply). */
  apply(event: HistoryEvent): void {
    if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
      const activity = pendingFromScheduled(event);
      this.pending.set(activity.scheduledEventId, activity);
      this.ids.set(activity.activityId, activity.scheduledEventId);
    } else if (event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED) {
      const activity = this.pending.get(toNumber(event.activityTaskCancelRequestedEventAttributes?.scheduledEventId));
      if (activity) activity.cancelRequestedEventId = eventNumber(event);
    } else if (activityOutcomes.has(event.eventType ?? 0)) {
      const attributes =
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes ??
        event.activityTaskCanceledEventAttributes;
      const activity = this.pending.get(toNumber(attributes?.scheduledEventId));
      if (activity) {
        this.pending.delete(activity.scheduledEventId);
        this.ids.delete(activity.activityId);
      }
    }
  }

  record(): ActivityRecord[] {
    return [...this.pending.values()].map((activity) => ({
      scheduledEventId: activity.scheduledEventId,
      attempt: activity.attempt,
      state: activity.state,
      currentAttemptScheduledTime: activity.currentAttemptScheduledTime,
      startedTime: activity.startedTime,
      startedIdentity: activity.startedIdentity,
      requestId: activity.requestId,
      heartbeatDetails: activity.heartbeatDetails,
      lastHeartbeatTime: activity.lastHeartbeatTime,
      lastFailure: activity.lastFailure,
      retryAt: activity.retryAt,
    }));
  }

  /**
   * After a restart: each pending activity takes its recorded attempt; an attempt that had been handed to a
   * worker is counted as lost (a start-to-close timeout now, retried per the retry policy), a waiting one is
   * offered again, a backing-off one when its backoff ends. Schedule-to-close deadlines are armed against the
   * clock.
   */
  resume(records: ActivityRecord[]): void {
    const byId = new Map(records.map((record) => [record.scheduledEventId, record]));
    for (const activity of [...this.pending.values()]) {
      const record = byId.get(activity.scheduledEventId);
      if (record) Object.assign(activity, record);
      this.armScheduleToClose(activity);
      if (activity.state === 'started') {
        this.timeOut(activity, activity.attempt, TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
      } else if (activity.state === 'backoff') {
        activity.attemptTimers.push(this.run.host.clock.schedule(activity.retryAt ?? 0, () => this.dispatchAttempt(activity)));
      } else {
        this.dispatchAttempt(activity);
      }
    }
  }

  private armScheduleToClose(activity: PendingActivity): void {
    if (activity.scheduleToCloseMs <= 0) return;
    activity.scheduleToCloseTimer = this.run.host.clock.schedule(activity.firstScheduledTime + activity.scheduleToCloseMs, () =>
      this.timeOut(activity, activity.attempt, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE),
    );
  }

  /**
   * Dispatches an activity just scheduled (its ActivityTaskScheduled event is written), or — eager execution —
   * starts it for `eagerIdentity`, the worker completing the current workflow task.
   */
  dispatch(scheduledEventId: number, eagerIdentity?: string): void {
    const activity = this.pending.get(scheduledEventId);
    if (!activity) return;
    this.armScheduleToClose(activity);
    if (eagerIdentity === undefined) {
      this.dispatchAttempt(activity);
      return;
    }
    activity.state = 'scheduled';
    const task = this.start(activity.scheduledEventId, activity.attempt, eagerIdentity);
    if (task) this.eagerTasks.push(task);
  }

  /** Activity tasks started eagerly by the workflow task completion in progress; empties the list. */
  takeEagerTasks(): PollActivityTaskResponse[] {
    return this.eagerTasks.splice(0);
  }

  private dispatchAttempt(activity: PendingActivity): void {
    activity.state = 'scheduled';
    activity.retryAt = undefined;
    activity.currentAttemptScheduledTime = this.run.host.clock.now();
    this.run.touch();
    if (activity.scheduleToStartMs > 0) {
      const attempt = activity.attempt;
      activity.attemptTimers.push(
        this.run.host.clock.after(activity.scheduleToStartMs, () => this.timeOut(activity, attempt, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START)),
      );
    }
    this.run.host.enqueueActivityTask(this, activity);
  }

  /** The pending activity attempt a token refers to, if still current. */
  forToken(token: TaskToken): PendingActivity | undefined {
    const activity = this.pending.get(token.id);
    if (!activity || activity.attempt !== token.attempt) return undefined;
    return activity;
  }

  /** Hands an activity attempt to a poller; undefined if it is no longer waiting. */
  start(scheduledEventId: number, attempt: number, identity: string): PollActivityTaskResponse | undefined {
    const activity = this.pending.get(scheduledEventId);
    if (!this.run.isRunning || !activity || activity.attempt !== attempt || activity.state !== 'scheduled') return undefined;
    this.clearTimers(activity, false);
    activity.state = 'started';
    activity.startedTime = this.run.host.clock.now();
    activity.startedIdentity = identity;
    activity.requestId = randomUUID();
    this.run.touch();
    if (activity.startToCloseMs > 0) {
      activity.attemptTimers.push(
        this.run.host.clock.after(activity.startToCloseMs, () => this.timeOut(activity, attempt, TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE)),
      );
    }
    this.armHeartbeatTimer(activity);
    const token: TaskToken = { kind: 'activity', workflowId: this.run.workflowId, runId: this.run.runId, id: scheduledEventId, attempt };
    return {
      taskToken: encodeTaskToken(token),
      workflowNamespace: this.run.host.namespace,
      workflowType: { name: this.run.init.workflowType },
      workflowExecution: this.run.execution,
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

  /**
   * Takes back an attempt handed to a poller that never got it (its start could not be stored): scheduled again,
   * under its schedule-to-start timeout counted from when it was first offered, and offered to the next poll — or, if
   * its cancellation was asked for meanwhile, canceled at once, as an attempt no worker runs is.
   */
  returnToQueue(token: TaskToken): void {
    const activity = this.forToken(token);
    if (!this.run.isRunning || !activity || activity.state !== 'started') return;
    this.clearTimers(activity, false);
    activity.state = 'scheduled';
    activity.startedTime = undefined;
    activity.startedIdentity = undefined;
    activity.requestId = undefined;
    this.run.touch();
    if (activity.cancelRequestedEventId !== undefined) {
      this.reportCanceled(activity, null, '');
      return;
    }
    if (activity.scheduleToStartMs > 0) {
      const attempt = activity.attempt;
      activity.attemptTimers.push(
        this.run.host.clock.schedule(activity.currentAttemptScheduledTime + activity.scheduleToStartMs, () =>
          this.timeOut(activity, attempt, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START),
        ),
      );
    }
    this.run.host.enqueueActivityTask(this, activity);
  }

  private armHeartbeatTimer(activity: PendingActivity): void {
    if (activity.heartbeatMs <= 0) return;
    const attempt = activity.attempt;
    activity.heartbeatTimer?.cancel();
    activity.heartbeatTimer = this.run.host.clock.after(activity.heartbeatMs, () =>
      this.timeOut(activity, attempt, TimeoutType.TIMEOUT_TYPE_HEARTBEAT),
    );
  }

  /** Records a heartbeat; returns whether cancellation was requested. */
  heartbeat(activity: PendingActivity, details: Payloads | null | undefined): boolean {
    activity.heartbeatDetails = details ?? activity.heartbeatDetails;
    activity.lastHeartbeatTime = this.run.host.clock.now();
    this.run.touch();
    if (activity.state === 'started') this.armHeartbeatTimer(activity);
    return activity.cancelRequestedEventId !== undefined;
  }

  private clearTimers(activity: PendingActivity, includingScheduleToClose: boolean): void {
    for (const timer of activity.attemptTimers) timer.cancel();
    activity.attemptTimers = [];
    activity.heartbeatTimer?.cancel();
    activity.heartbeatTimer = undefined;
    if (includingScheduleToClose) activity.scheduleToCloseTimer?.cancel();
  }

  private finish(activity: PendingActivity): void {
    this.clearTimers(activity, true);
    this.pending.delete(activity.scheduledEventId);
    this.ids.delete(activity.activityId);
  }

  /**
   * ActivityTaskStarted of the current attempt, written only with the outcome as the server does; the outcome
   * right after it refers to it (WorkflowRun.writeEvents fills in the id).
   */
  private startedEvent(activity: PendingActivity): PendingEvent {
    return {
      eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
      attributes: {
        activityTaskStartedEventAttributes: {
          scheduledEventId: int64(activity.scheduledEventId),
          identity: activity.startedIdentity,
          requestId: activity.requestId,
          attempt: activity.attempt,
          lastFailure: activity.lastFailure,
        },
      },
    };
  }

  complete(activity: PendingActivity, result: Payloads | null | undefined, identity: string): void {
    this.finish(activity);
    this.run.appendOrBuffer(
      [
        this.startedEvent(activity),
        {
          eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
          attributes: { activityTaskCompletedEventAttributes: { result, scheduledEventId: int64(activity.scheduledEventId), identity } },
        },
      ],
      true,
    );
  }

  /** A failed attempt: retried per the retry policy, or written as ActivityTaskFailed. */
  fail(activity: PendingActivity, failure: Failure, identity: string, lastHeartbeatDetails?: Payloads | null): void {
    if (lastHeartbeatDetails?.payloads?.length) activity.heartbeatDetails = lastHeartbeatDetails;
    const retry = this.retryDecision(activity, failure);
    if (retry.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
      this.retry(activity, failure, retry.delayMs);
      return;
    }
    this.finish(activity);
    this.run.appendOrBuffer(
      [
        this.startedEvent(activity),
        {
          eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
          attributes: { activityTaskFailedEventAttributes: { failure, scheduledEventId: int64(activity.scheduledEventId), identity, retryState: retry.retryState } },
        },
      ],
      true,
    );
  }

  reportCanceled(activity: PendingActivity, details: Payloads | null | undefined, identity: string): void {
    this.finish(activity);
    const canceled: PendingEvent = {
      eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
      attributes: {
        activityTaskCanceledEventAttributes: {
          details,
          latestCancelRequestedEventId: int64(activity.cancelRequestedEventId ?? 0),
          scheduledEventId: int64(activity.scheduledEventId),
          startedEventId: int64(0),
          identity,
        },
      },
    };
    this.run.appendOrBuffer(activity.state === 'started' ? [this.startedEvent(activity), canceled] : [canceled], true);
  }

  /** RequestCancelActivityTask: cancels at once unless a worker is running the attempt. */
  requestCancel(scheduledEventId: number, completedEventId: number): boolean {
    const activity = this.pending.get(scheduledEventId);
    if (!activity) return false;
    this.run.addEvent(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED, {
      activityTaskCancelRequestedEventAttributes: { scheduledEventId: int64(scheduledEventId), workflowTaskCompletedEventId: int64(completedEventId) },
    });
    if (activity.state !== 'started') this.reportCanceled(activity, null, '');
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
    if (activity.scheduleToCloseMs > 0 && this.run.host.clock.now() + delayMs >= activity.firstScheduledTime + activity.scheduleToCloseMs) {
      return { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
    }
    return { retryState: RetryState.RETRY_STATE_IN_PROGRESS, delayMs };
  }

  private retry(activity: PendingActivity, failure: Failure, delayMs: number): void {
    this.clearTimers(activity, false);
    activity.lastFailure = failure;
    activity.attempt += 1;
    activity.state = 'backoff';
    activity.startedTime = undefined;
    activity.retryAt = this.run.host.clock.now() + delayMs;
    this.run.touch();
    activity.attemptTimers.push(this.run.host.clock.schedule(activity.retryAt, () => this.dispatchAttempt(activity)));
  }

  private timeOut(activity: PendingActivity, attempt: number, timeoutType: temporal.api.enums.v1.TimeoutType): void {
    if (this.pending.get(activity.scheduledEventId) !== activity || activity.attempt !== attempt || !this.run.isRunning) return;
    const failure: Failure = {
      message: `activity ${timeoutNames[timeoutType] ?? 'unknown'} timeout`,
      source: 'Server',
      timeoutFailureInfo: { timeoutType, lastHeartbeatDetails: activity.heartbeatDetails },
    };
    const retryable = timeoutType === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE || timeoutType === TimeoutType.TIMEOUT_TYPE_HEARTBEAT;
    const retry = retryable ? this.retryDecision(activity, failure) : { retryState: RetryState.RETRY_STATE_TIMEOUT, delayMs: 0 };
    if (retry.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
      this.retry(activity, failure, retry.delayMs);
      return;
    }
    const wasStarted = activity.state === 'started';
    this.finish(activity);
    const timedOut: PendingEvent = {
      eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
      attributes: {
        activityTaskTimedOutEventAttributes: {
          failure: wasStarted || !activity.lastFailure ? failure : { ...failure, cause: activity.lastFailure },
          scheduledEventId: int64(activity.scheduledEventId),
          startedEventId: int64(0),
          retryState: retry.retryState,
        },
      },
    };
    this.run.appendOrBuffer(wasStarted ? [this.startedEvent(activity), timedOut] : [timedOut], true);
  }

  pendingInfos(): temporal.api.workflow.v1.IPendingActivityInfo[] {
    return [...this.pending.values()].map((activity) => ({
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
}

const timeoutNames: Record<number, string> = {
  [TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
  [TimeoutType.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
};

/** The pending activity an ActivityTaskScheduled event describes (its timeouts and retry policy as normalised then). */
function pendingFromScheduled(event: HistoryEvent): PendingActivity {
  const attributes = event.activityTaskScheduledEventAttributes ?? {};
  const policy = attributes.retryPolicy ?? {};
  const scheduledTime = timestampToMs(event.eventTime);
  return {
    scheduledEventId: eventNumber(event),
    activityId: attributes.activityId ?? '',
    activityType: attributes.activityType?.name ?? '',
    taskQueue: attributes.taskQueue?.name ?? '',
    input: attributes.input,
    header: attributes.header,
    scheduleToCloseMs: durationToMs(attributes.scheduleToCloseTimeout),
    scheduleToStartMs: durationToMs(attributes.scheduleToStartTimeout),
    startToCloseMs: durationToMs(attributes.startToCloseTimeout),
    heartbeatMs: durationToMs(attributes.heartbeatTimeout),
    retryPolicy: {
      initialIntervalMs: durationToMs(policy.initialInterval),
      backoffCoefficient: policy.backoffCoefficient ?? 0,
      maximumIntervalMs: durationToMs(policy.maximumInterval),
      maximumAttempts: policy.maximumAttempts ?? 0,
      nonRetryableErrorTypes: policy.nonRetryableErrorTypes ?? [],
    },
    attempt: 1,
    firstScheduledTime: scheduledTime,
    currentAttemptScheduledTime: scheduledTime,
    state: 'scheduled',
    attemptTimers: [],
  };
}
