/**
 * The workflow tasks of one workflow run, and the events buffered while one is started.
 *
 * A task is scheduled → started → completed / failed / timed out. Events that happen while a task is started
 * are buffered and written after that task's completion events, as the Temporal server does. Tasks follow
 * the server's rules for stickiness and retries: after a completion that asks for a sticky queue, later
 * tasks go to that worker's queue carrying only the events after the previous started event (falling back to
 * the normal queue with full history when that worker stops polling, its schedule-to-start timeout passes,
 * or stickiness is reset); a failed or timed-out task writes its events once, and the retries that follow
 * are transient — their Scheduled/Started events reach the worker but are written to history only when an
 * attempt completes. Task state follows the history events (`apply`); a transient retry, which history does not
 * show, and the buffered events are the tasks' `record()`, kept beside history for a restart.
 */
import { randomUUID } from 'node:crypto';
import { type ScheduledTimer } from './clock';
import type { Closing } from './commands';
import { eventNumber, newEvent, type PendingEvent } from './history-events';
import {
  durationToMs,
  EventType,
  type Failure,
  type HistoryEvent,
  int64,
  msToDuration,
  msToTimestamp,
  temporal,
  TimeoutType,
  timestampToMs,
  toNumber,
} from './proto';
import { encodeTaskToken, type TaskToken } from './task-tokens';
import { suggestsContinueAsNew, workflowTaskAttemptTimeoutMs } from './workflow-task-policy';
import { type WorkflowRun } from './workflow-state';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;

export interface WorkflowTaskState {
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

/** A transient workflow task (a retry not in history), kept beside history. */
export interface WorkflowTaskRecord {
  attempt: number;
  scheduledTime: number;
  /** Whether it had been handed to a worker. */
  started: boolean;
}

/** Events produced while a workflow task is started, written after its completion. */
interface BufferedGroup {
  time: number;
  events: PendingEvent[];
  triggersTask: boolean;
}

/** The sticky queue of the worker that completed the last workflow task, as it asked for. */
export interface Stickiness {
  taskQueue: string;
  scheduleToStartMs: number;
}

/** What the workflow tasks need from their run. */
export type WorkflowTaskOwner = Pick<
  WorkflowRun,
  'host' | 'init' | 'isRunning' | 'workflowId' | 'runId' | 'execution' | 'history' | 'historySizeBytes' | 'nextEventId' | 'addEvent' | 'appendEvent' | 'writeEvents' | 'touch'
>;

export class WorkflowTasks {
  /** The scheduled or started workflow task, if any. */
  task?: WorkflowTaskState;
  /** Started event id of the last successfully completed workflow task. */
  previousStartedEventId = 0;
  sticky?: Stickiness;
  private buffered: BufferedGroup[] = [];
  private completing = false;
  private wanted = false;
  private afterCompletion: (() => void)[] = [];
  private backoffTimer?: ScheduledTimer;

  constructor(private readonly run: WorkflowTaskOwner) {}

  /** Schedules the first workflow task after a start delay; a request before then schedules it at once. */
  scheduleFirstAfter(delayMs: number): void {
    this.backoffTimer = this.run.host.clock.after(delayMs, () => this.request());
  }

  /** The run closed: stops the task's timers and drops the task, stickiness and buffered events. */
  clear(): void {
    this.task?.timeoutTimer?.cancel();
    this.task?.scheduleToStartTimer?.cancel();
    this.task = undefined;
    this.sticky = undefined;
    this.backoffTimer?.cancel();
    this.buffered = [];
    this.afterCompletion = [];
  }

  /**
   * Writes events now, or — while a workflow task is started — after that task's completion events.
   * `triggersTask` asks for a new workflow task once written.
   */
  appendOrBuffer(events: PendingEvent[], triggersTask: boolean): void {
    const time = this.run.host.clock.now();
    if (this.task?.startedEventId !== undefined && !this.completing) {
      this.buffered.push({ time, events, triggersTask });
      this.run.touch();
      return;
    }
    this.run.writeEvents(events, time);
    if (triggersTask) this.request();
  }

  get hasBufferedEvents(): boolean {
    return this.buffered.length > 0;
  }

  /**
   * Takes back the buffered TimerFired of `timerId` — the timer fired while the task now completing ran, and that
   * task cancels it — and returns the timer's started event id. The workflow never saw it fire, so, as on the server,
   * the fire is dropped and the cancel written: history must show what the workflow did, or its replay fails.
   */
  unbufferTimerFired(timerId: string): number | undefined {
    for (const [groupIndex, group] of this.buffered.entries()) {
      const index = group.events.findIndex(
        (event) => event.eventType === EventType.EVENT_TYPE_TIMER_FIRED && event.attributes.timerFiredEventAttributes?.timerId === timerId,
      );
      if (index < 0) continue;
      const [fired] = group.events.splice(index, 1);
      if (group.events.length === 0) this.buffered.splice(groupIndex, 1);
      this.run.touch();
      return toNumber(fired!.attributes.timerFiredEventAttributes?.startedEventId);
    }
    return undefined;
  }

  /** Whether an event is buffered other than the fire of one of `timerIds`. */
  private buffersBeyondFires(timerIds: string[]): boolean {
    return this.buffered.some((group) =>
      group.events.some(
        (event) => event.eventType !== EventType.EVENT_TYPE_TIMER_FIRED || !timerIds.includes(event.attributes.timerFiredEventAttributes?.timerId ?? ''),
      ),
    );
  }

  private flushBuffered(): void {
    const buffered = this.buffered;
    this.buffered = [];
    for (const entry of buffered) {
      this.run.writeEvents(entry.events, entry.time);
      if (entry.triggersTask) this.wanted = true;
    }
  }

  // ---------------------------------------------------------------- the fold and the record

  /** Folds a workflow task event into the tasks' state (see WorkflowRun.apply). */
  apply(event: HistoryEvent): void {
    const time = timestampToMs(event.eventTime);
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED: {
        const attempt = event.workflowTaskScheduledEventAttributes?.attempt || 1;
        const task = this.task;
        if (task && task.startedEventId === undefined) {
          // A transient retry written as a first attempt (new events arrived): the same task, now in history.
          Object.assign(task, { scheduledEventId: eventNumber(event), attempt, transient: false, scheduledTime: time });
        } else {
          this.task = { scheduledEventId: eventNumber(event), attempt, transient: false, scheduledTime: time, dispatch: 0 };
        }
        return;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        if (this.task) {
          this.task.startedEventId = eventNumber(event);
          this.task.startedTime = time;
        }
        return;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        this.previousStartedEventId = toNumber(event.workflowTaskCompletedEventAttributes?.startedEventId);
        this.task = undefined;
        return;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
      case EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
        this.task = undefined;
        return;
      default:
    }
  }

  /** The transient task, which history does not show; undefined when the task (if any) is in history. */
  record(): WorkflowTaskRecord | undefined {
    const task = this.task;
    if (!task?.transient) return undefined;
    return { attempt: task.attempt, scheduledTime: task.scheduledTime, started: task.startedEventId !== undefined };
  }

  bufferedGroups(): BufferedGroup[] {
    return this.buffered;
  }

  /**
   * After a restart (state folded from history): a task that had been handed to a worker is
   * timed out and scheduled again with its attempt counted (writing the buffered events), a scheduled one is
   * offered again, and a run whose first task was delayed gets it when the delay ends.
   */
  resume(record: WorkflowTaskRecord | undefined, buffered: BufferedGroup[]): void {
    this.buffered = buffered.slice();
    if (record) {
      this.task = { scheduledEventId: this.run.nextEventId, attempt: record.attempt, transient: true, scheduledTime: record.scheduledTime, dispatch: 0 };
      if (record.started) this.task.startedEventId = this.run.nextEventId + 1;
    }
    const task = this.task;
    if (task?.startedEventId !== undefined) {
      this.timeOutStarted(task);
    } else if (task) {
      this.offer(task);
    } else if (this.buffered.length > 0) {
      this.flushBuffered();
      this.request();
    } else if (!this.run.history.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)) {
      // The first task of a run started with a delay: when the delay ends.
      const delay = timestampToMs(this.run.history[0]?.eventTime) + this.run.init.firstWorkflowTaskBackoffMs - this.run.host.clock.now();
      if (delay > 0) this.scheduleFirstAfter(delay);
      else this.request();
    }
  }

  /** Schedules a workflow task unless one is already scheduled; during a started task, one follows it. */
  request(): void {
    if (!this.run.isRunning) return;
    if (this.completing || this.task?.startedEventId !== undefined) {
      this.wanted = true;
      return;
    }
    if (this.task) return;
    this.backoffTimer?.cancel();
    this.schedule(1);
  }

  /**
   * Schedules attempt `attempt`: a first attempt writes WorkflowTaskScheduled, a retry (attempt > 1) is
   * transient. The task goes to the sticky queue while its worker is live, else to the normal queue.
   */
  private schedule(attempt: number): void {
    if (this.sticky && !this.run.host.stickyQueueLive(this.sticky.taskQueue)) this.sticky = undefined;
    const scheduledTime = this.run.host.clock.now();
    if (attempt > 1) {
      this.task = { scheduledEventId: this.run.nextEventId, attempt, transient: true, scheduledTime, dispatch: 0 };
      this.run.touch();
    } else {
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, this.scheduledAttributes(attempt), scheduledTime);
    }
    this.offer(this.task!);
  }

  private scheduledAttributes(attempt: number): HistoryEvent {
    const taskQueue = this.sticky
      ? { name: this.sticky.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: this.run.init.taskQueue }
      : { name: this.run.init.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL };
    return {
      workflowTaskScheduledEventAttributes: { taskQueue, startToCloseTimeout: msToDuration(workflowTaskAttemptTimeoutMs(this.run.init.taskTimeoutMs, attempt)), attempt },
    };
  }

  /** Offers the scheduled task to the sticky queue (with its schedule-to-start timeout) or the normal one. */
  private offer(task: WorkflowTaskState): void {
    task.dispatch += 1;
    task.stickyQueue = this.sticky?.taskQueue;
    task.scheduleToStartTimer?.cancel();
    task.scheduleToStartTimer = undefined;
    if (this.sticky && this.sticky.scheduleToStartMs > 0) {
      const dispatch = task.dispatch;
      task.scheduleToStartTimer = this.run.host.clock.after(this.sticky.scheduleToStartMs, () => this.stickyScheduleToStartTimedOut(task, dispatch));
    }
    this.run.host.enqueueWorkflowTask(this, task.stickyQueue ?? this.run.init.taskQueue, task.dispatch);
  }

  /** The sticky worker did not pick the task up in time: WorkflowTaskTimedOut, then a task on the normal queue. */
  private stickyScheduleToStartTimedOut(task: WorkflowTaskState, dispatch: number): void {
    if (!this.run.isRunning || this.task !== task || task.startedEventId !== undefined || task.dispatch !== dispatch) return;
    this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
      workflowTaskTimedOutEventAttributes: {
        scheduledEventId: int64(task.scheduledEventId),
        startedEventId: int64(0),
        timeoutType: TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
      },
    });
    this.retry(task, false);
  }

  /**
   * Stops sending this run's tasks to a sticky queue (ResetStickyTaskQueue, or its worker shut down); a task
   * waiting there moves to the normal queue.
   */
  resetStickiness(): void {
    this.sticky = undefined;
    const task = this.task;
    if (this.run.isRunning && task && task.startedEventId === undefined && task.stickyQueue !== undefined) this.offer(task);
  }

  /**
   * Starts the scheduled workflow task for a poller; undefined if the offer `dispatch` is stale. A sticky
   * task carries the events after the previous started event, a normal one the whole history; a transient
   * task's Scheduled/Started events are appended to what is sent without entering history.
   */
  start(identity: string, dispatch: number): PollWorkflowTaskResponse | undefined {
    const task = this.task;
    if (!this.run.isRunning || !task || task.startedEventId !== undefined || task.dispatch !== dispatch) return undefined;
    task.scheduleToStartTimer?.cancel();
    const now = this.run.host.clock.now();
    if (task.transient && task.scheduledEventId !== this.run.nextEventId) {
      // New events since the retry was scheduled: it becomes a normal first attempt, as on the server.
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, this.scheduledAttributes(1), now);
    }
    // As on the server: the history's size before this Started event, and its length with it.
    const historySizeBytes = this.run.historySizeBytes;
    const historyLength = task.transient ? task.scheduledEventId + 1 : this.run.nextEventId;
    const startedAttributes: HistoryEvent = {
      workflowTaskStartedEventAttributes: {
        scheduledEventId: int64(task.scheduledEventId),
        identity,
        requestId: randomUUID(),
        historySizeBytes: int64(historySizeBytes),
        suggestContinueAsNew: suggestsContinueAsNew(historyLength, historySizeBytes),
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
      task.startedTime = now;
      this.run.touch();
    } else {
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, startedAttributes, now);
    }
    const token: TaskToken = { kind: 'workflow', workflowId: this.run.workflowId, runId: this.run.runId, id: task.scheduledEventId, attempt: task.attempt };
    task.timeoutTimer = this.run.host.clock.after(workflowTaskAttemptTimeoutMs(this.run.init.taskTimeoutMs, task.attempt), () => this.timeOut(token));
    const firstEventIndex = task.stickyQueue !== undefined ? this.previousStartedEventId : 0;
    return {
      taskToken: encodeTaskToken(token),
      workflowExecution: this.run.execution,
      workflowType: { name: this.run.init.workflowType },
      previousStartedEventId: int64(this.previousStartedEventId),
      startedEventId: int64(task.startedEventId ?? 0),
      attempt: task.attempt,
      history: { events: this.run.history.slice(firstEventIndex).concat(transientEvents) },
      workflowExecutionTaskQueue: { name: this.run.init.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      scheduledTime: msToTimestamp(task.scheduledTime),
      startedTime: msToTimestamp(now),
    };
  }

  /** The started workflow task the token refers to, if it is still current. */
  startedTask(token: TaskToken): WorkflowTaskState | undefined {
    const task = this.task;
    if (!this.run.isRunning || !task || task.startedEventId === undefined) return undefined;
    if (task.scheduledEventId !== token.id || task.attempt !== token.attempt) return undefined;
    return task;
  }

  /**
   * Completes the started workflow task: writes WorkflowTaskCompleted, lets `applyCommands` write the
   * commands' events, then the buffered events, then schedules the next task if anything asks for one.
   * A completion that would close the workflow while events are buffered — other than the fires of timers it cancels
   * before closing — is refused (UNHANDLED_COMMAND).
   */
  complete(
    request: temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest,
    closing: Closing | undefined,
    applyCommands: (completedEventId: number) => void,
  ): void {
    const task = this.task!;
    task.timeoutTimer?.cancel();
    if (closing && this.buffersBeyondFires(closing.timersCanceledBefore)) {
      this.fail(
        task,
        temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
        { message: 'Workflow completion refused: new events arrived during the workflow task' },
        request.identity ?? '',
      );
      return;
    }
    this.completing = true;
    try {
      for (const event of task.transientEvents ?? []) this.run.appendEvent(event);
      const completed = this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, {
        workflowTaskCompletedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          identity: request.identity,
          binaryChecksum: request.binaryChecksum,
          sdkMetadata: request.sdkMetadata,
          meteringMetadata: request.meteringMetadata,
        },
      });
      const stickyQueue = request.stickyAttributes?.workerTaskQueue?.name;
      this.sticky = stickyQueue
        ? { taskQueue: stickyQueue, scheduleToStartMs: durationToMs(request.stickyAttributes?.scheduleToStartTimeout) }
        : undefined;
      this.wanted = false;
      applyCommands(eventNumber(completed));
      if (!this.run.isRunning) return;
      this.flushBuffered();
    } finally {
      this.completing = false;
    }
    const followUps = this.afterCompletion;
    this.afterCompletion = [];
    if (this.wanted || request.forceCreateNewWorkflowTask) {
      this.wanted = false;
      this.request();
    }
    for (const followUp of followUps) followUp();
  }

  /** Runs `action` once the current workflow task completion has been written (children, external signals). */
  deferUntilCompleted(action: () => void): void {
    this.afterCompletion.push(action);
  }

  /** Fails the started workflow task (worker report or server refusal) and schedules the next attempt. */
  fail(
    task: WorkflowTaskState,
    cause: temporal.api.enums.v1.WorkflowTaskFailedCause,
    failure: Failure | null | undefined,
    identity: string,
  ): void {
    task.timeoutTimer?.cancel();
    if (!task.transient) {
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          cause,
          failure,
          identity,
        },
      });
    }
    this.retry(task, true);
  }

  /**
   * A started task whose poll was never answered (its start could not be stored): timed out now, as it would be once
   * its start-to-close timeout passed, and offered again to the next poll.
   */
  abandonStarted(token: TaskToken): void {
    const task = this.startedTask(token);
    if (!task) return;
    task.timeoutTimer?.cancel();
    this.timeOutStarted(task);
  }

  private timeOut(token: TaskToken): void {
    const task = this.startedTask(token);
    if (task) this.timeOutStarted(task);
  }

  private timeOutStarted(task: WorkflowTaskState): void {
    if (!task.transient) {
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
        workflowTaskTimedOutEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId ?? 0),
          timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
        },
      });
    }
    this.retry(task, true);
  }

  /**
   * Schedules the task after a failed or timed-out one. As on the server: a task that failed on a sticky
   * queue is retried once on the normal queue as a first attempt, and events that arrived meanwhile make the
   * retry a normal (non-transient) first attempt too; otherwise the attempt number grows.
   */
  private retry(task: WorkflowTaskState, incrementAttempt: boolean): void {
    const wasSticky = this.sticky !== undefined;
    this.sticky = undefined;
    this.task = undefined;
    const hadBuffered = this.buffered.length > 0;
    this.flushBuffered();
    this.wanted = false;
    this.schedule(incrementAttempt && !wasSticky && !hadBuffered ? task.attempt + 1 : 1);
  }

  /** A forced close while a workflow task is started ends that task first, then writes buffered events. */
  failStartedForClose(): void {
    const task = this.task;
    if (task?.startedEventId !== undefined && !task.transient) {
      this.run.addEvent(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
        workflowTaskFailedEventAttributes: {
          scheduledEventId: int64(task.scheduledEventId),
          startedEventId: int64(task.startedEventId),
          cause: temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
        },
      });
    }
    this.flushBuffered();
  }

  pendingInfo(): temporal.api.workflow.v1.IPendingWorkflowTaskInfo | null {
    const task = this.task;
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
