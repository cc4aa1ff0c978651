/**
 * Applies the commands of a completed workflow task to a run: each command writes its history events and
 * updates the run's state (activities, timers, markers, close). Commands that reach other runs — child
 * workflows, external signals and cancels, continue-as-new — are handed to the CommandHost.
 */
import {
  CommandType,
  durationToMs,
  EventType,
  int64,
  msToDuration,
  RetryState,
  temporal,
  toNumber,
} from './proto';
import { type ActivityRetryPolicy } from './run-activities';
import { type WorkflowRun } from './workflow-state';

type Command = temporal.api.command.v1.ICommand;

/** Cross-run effects of commands, implemented by the namespace engine. */
export interface CommandHost {
  continueAsNew(run: WorkflowRun, attributes: temporal.api.command.v1.IContinueAsNewWorkflowExecutionCommandAttributes, completedEventId: number): void;
  startChild(parent: WorkflowRun, initiatedEventId: number): void;
  signalExternal(run: WorkflowRun, initiatedEventId: number, attributes: temporal.api.command.v1.ISignalExternalWorkflowExecutionCommandAttributes): void;
  cancelExternal(run: WorkflowRun, initiatedEventId: number, attributes: temporal.api.command.v1.IRequestCancelExternalWorkflowExecutionCommandAttributes): void;
}

const closingCommands = new Set<number>([
  CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
]);

/** A workflow task's command closing its workflow, with the timers that commands before it cancel. */
export interface Closing {
  timersCanceledBefore: string[];
}

/**
 * The command closing the workflow, if any. The server refuses a close while events are buffered, judged at the
 * close, after the commands before it: a cancel there takes back its timer's buffered fire.
 */
export function closingCommand(commands: Command[]): Closing | undefined {
  const timersCanceledBefore: string[] = [];
  for (const command of commands) {
    const type = command.commandType ?? 0;
    if (closingCommands.has(type)) return { timersCanceledBefore };
    if (type === CommandType.COMMAND_TYPE_CANCEL_TIMER) timersCanceledBefore.push(command.cancelTimerCommandAttributes?.timerId ?? '');
  }
  return undefined;
}

/**
 * Checks a workflow task's commands before any is applied, as the server does; returns the failure cause
 * for the workflow task when one is invalid.
 */
export function validateCommands(
  run: WorkflowRun,
  commands: Command[],
): { cause: temporal.api.enums.v1.WorkflowTaskFailedCause; message: string } | undefined {
  const Cause = temporal.api.enums.v1.WorkflowTaskFailedCause;
  const activityIds = new Set(run.activities.ids.keys());
  for (const command of commands) {
    const type = command.commandType ?? 0;
    if (!supportedCommands.has(type)) {
      return { cause: Cause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND, message: `Command type ${type} is not supported by the in-memory service` };
    }
    if (type === CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK) {
      const attributes = command.scheduleActivityTaskCommandAttributes ?? {};
      if (durationToMs(attributes.scheduleToCloseTimeout) <= 0 && durationToMs(attributes.startToCloseTimeout) <= 0) {
        return {
          cause: Cause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
          message: 'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
        };
      }
      const activityId = attributes.activityId ?? '';
      if (activityIds.has(activityId)) {
        return { cause: Cause.WORKFLOW_TASK_FAILED_CAUSE_SCHEDULE_ACTIVITY_DUPLICATE_ID, message: `Activity id ${activityId} is already in use` };
      }
      activityIds.add(activityId);
    }
  }
  return undefined;
}

const supportedCommands = new Set<number>([
  ...closingCommands,
  CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
  CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK,
  CommandType.COMMAND_TYPE_START_TIMER,
  CommandType.COMMAND_TYPE_CANCEL_TIMER,
  CommandType.COMMAND_TYPE_RECORD_MARKER,
  CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  CommandType.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES,
  CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION,
  CommandType.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION,
]);

/** Writes the events of `commands`, in order, after the WorkflowTaskCompleted event `completedEventId`. */
export function applyCommands(host: CommandHost, run: WorkflowRun, commands: Command[], completedEventId: number, identity: string): void {
  const completed = int64(completedEventId);
  for (const command of commands) {
    if (!run.isRunning) return;
    switch (command.commandType) {
      case CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK:
        scheduleActivity(run, command.scheduleActivityTaskCommandAttributes ?? {}, completedEventId, identity);
        break;
      case CommandType.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK:
        run.activities.requestCancel(toNumber(command.requestCancelActivityTaskCommandAttributes?.scheduledEventId), completedEventId);
        break;
      case CommandType.COMMAND_TYPE_START_TIMER: {
        const attributes = command.startTimerCommandAttributes ?? {};
        run.startTimer(attributes.timerId ?? '', durationToMs(attributes.startToFireTimeout), completedEventId);
        break;
      }
      case CommandType.COMMAND_TYPE_CANCEL_TIMER:
        run.cancelTimer(command.cancelTimerCommandAttributes?.timerId ?? '', completedEventId, identity);
        break;
      case CommandType.COMMAND_TYPE_RECORD_MARKER: {
        const attributes = command.recordMarkerCommandAttributes ?? {};
        run.addEvent(EventType.EVENT_TYPE_MARKER_RECORDED, {
          markerRecordedEventAttributes: {
            markerName: attributes.markerName,
            details: attributes.details,
            header: attributes.header,
            failure: attributes.failure,
            workflowTaskCompletedEventId: completed,
          },
        });
        break;
      }
      case CommandType.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const searchAttributes = command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes ?? {};
        run.addEvent(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
          upsertWorkflowSearchAttributesEventAttributes: { searchAttributes, workflowTaskCompletedEventId: completed },
        });
        break;
      }
      case CommandType.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
        const upsertedMemo = command.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo ?? {};
        run.addEvent(EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED, {
          workflowPropertiesModifiedEventAttributes: { upsertedMemo, workflowTaskCompletedEventId: completed },
        });
        break;
      }
      case CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION: {
        const result = command.completeWorkflowExecutionCommandAttributes?.result;
        run.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, {
          workflowExecutionCompletedEventAttributes: { result, workflowTaskCompletedEventId: completed },
        });
        run.close();
        break;
      }
      case CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION: {
        const failure = command.failWorkflowExecutionCommandAttributes?.failure;
        const retryState = run.init.retryPolicy ? RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE : RetryState.RETRY_STATE_RETRY_POLICY_NOT_SET;
        run.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, {
          workflowExecutionFailedEventAttributes: { failure, retryState, workflowTaskCompletedEventId: completed },
        });
        run.close();
        break;
      }
      case CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION: {
        const details = command.cancelWorkflowExecutionCommandAttributes?.details;
        run.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, {
          workflowExecutionCanceledEventAttributes: { details, workflowTaskCompletedEventId: completed },
        });
        run.close();
        break;
      }
      case CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
        host.continueAsNew(run, command.continueAsNewWorkflowExecutionCommandAttributes ?? {}, completedEventId);
        break;
      case CommandType.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION: {
        const attributes = command.startChildWorkflowExecutionCommandAttributes ?? {};
        const initiated = run.addEvent(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, {
          startChildWorkflowExecutionInitiatedEventAttributes: {
            namespace: run.host.namespace,
            workflowId: attributes.workflowId,
            workflowType: attributes.workflowType,
            taskQueue: attributes.taskQueue?.name ? attributes.taskQueue : { name: run.init.taskQueue },
            input: attributes.input,
            workflowExecutionTimeout: attributes.workflowExecutionTimeout,
            workflowRunTimeout: attributes.workflowRunTimeout,
            workflowTaskTimeout: attributes.workflowTaskTimeout,
            parentClosePolicy: attributes.parentClosePolicy,
            workflowTaskCompletedEventId: completed,
            workflowIdReusePolicy: attributes.workflowIdReusePolicy,
            retryPolicy: attributes.retryPolicy,
            cronSchedule: attributes.cronSchedule,
            header: attributes.header,
            memo: attributes.memo,
            searchAttributes: attributes.searchAttributes,
          },
        });
        const initiatedEventId = toNumber(initiated.eventId);
        run.workflowTasks.deferUntilCompleted(() => host.startChild(run, initiatedEventId));
        break;
      }
      case CommandType.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION: {
        const attributes = command.signalExternalWorkflowExecutionCommandAttributes ?? {};
        const initiated = run.addEvent(EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
          signalExternalWorkflowExecutionInitiatedEventAttributes: {
            namespace: run.host.namespace,
            workflowExecution: attributes.execution,
            signalName: attributes.signalName,
            input: attributes.input,
            control: attributes.control,
            childWorkflowOnly: attributes.childWorkflowOnly,
            header: attributes.header,
            workflowTaskCompletedEventId: completed,
          },
        });
        const initiatedEventId = toNumber(initiated.eventId);
        run.workflowTasks.deferUntilCompleted(() => host.signalExternal(run, initiatedEventId, attributes));
        break;
      }
      case CommandType.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION: {
        const attributes = command.requestCancelExternalWorkflowExecutionCommandAttributes ?? {};
        const initiated = run.addEvent(EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
          requestCancelExternalWorkflowExecutionInitiatedEventAttributes: {
            namespace: run.host.namespace,
            workflowExecution: { workflowId: attributes.workflowId, runId: attributes.runId },
            control: attributes.control,
            childWorkflowOnly: attributes.childWorkflowOnly,
            reason: attributes.reason,
            workflowTaskCompletedEventId: completed,
          },
        });
        const initiatedEventId = toNumber(initiated.eventId);
        run.workflowTasks.deferUntilCompleted(() => host.cancelExternal(run, initiatedEventId, attributes));
        break;
      }
      default:
        break;
    }
  }
}

const defaultRetry = { initialIntervalMs: 1000, backoffCoefficient: 2 };

/**
 * ScheduleActivityTask with the server's timeout defaults: schedule-to-close falls back to the workflow run
 * timeout (0 = unlimited), schedule-to-start and start-to-close to schedule-to-close, each capped by it and by
 * the run timeout; heartbeat is capped by start-to-close. An activity that asks for eager execution on the
 * workflow's own task queue is started at once for the completing worker (returned in the completion).
 */
function scheduleActivity(
  run: WorkflowRun,
  attributes: temporal.api.command.v1.IScheduleActivityTaskCommandAttributes,
  completedEventId: number,
  identity: string,
): void {
  const runTimeoutMs = run.init.runTimeoutMs;
  let scheduleToClose = durationToMs(attributes.scheduleToCloseTimeout);
  let scheduleToStart = durationToMs(attributes.scheduleToStartTimeout);
  let startToClose = durationToMs(attributes.startToCloseTimeout);
  let heartbeat = durationToMs(attributes.heartbeatTimeout);
  if (scheduleToClose > 0) {
    scheduleToStart = scheduleToStart > 0 ? Math.min(scheduleToStart, scheduleToClose) : scheduleToClose;
    startToClose = startToClose > 0 ? Math.min(startToClose, scheduleToClose) : scheduleToClose;
  } else if (startToClose > 0) {
    scheduleToClose = runTimeoutMs;
    if (scheduleToStart <= 0) scheduleToStart = runTimeoutMs;
  }
  if (runTimeoutMs > 0) {
    scheduleToClose = scheduleToClose > 0 ? Math.min(scheduleToClose, runTimeoutMs) : runTimeoutMs;
    scheduleToStart = scheduleToStart > 0 ? Math.min(scheduleToStart, runTimeoutMs) : runTimeoutMs;
    startToClose = Math.min(startToClose, runTimeoutMs);
  }
  heartbeat = Math.min(heartbeat, startToClose);

  const policy = attributes.retryPolicy ?? {};
  const initialIntervalMs = durationToMs(policy.initialInterval) || defaultRetry.initialIntervalMs;
  const retryPolicy: ActivityRetryPolicy = {
    initialIntervalMs,
    backoffCoefficient: policy.backoffCoefficient || defaultRetry.backoffCoefficient,
    maximumIntervalMs: durationToMs(policy.maximumInterval) || initialIntervalMs * 100,
    maximumAttempts: policy.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy.nonRetryableErrorTypes ?? [],
  };
  const activityId = attributes.activityId ?? '';
  const taskQueue = attributes.taskQueue?.name || run.init.taskQueue;
  const scheduled = run.addEvent(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, {
    activityTaskScheduledEventAttributes: {
      activityId,
      activityType: attributes.activityType,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      header: attributes.header,
      input: attributes.input,
      scheduleToCloseTimeout: msToDuration(scheduleToClose),
      scheduleToStartTimeout: msToDuration(scheduleToStart),
      startToCloseTimeout: msToDuration(startToClose),
      heartbeatTimeout: msToDuration(heartbeat),
      workflowTaskCompletedEventId: int64(completedEventId),
      retryPolicy: {
        initialInterval: msToDuration(retryPolicy.initialIntervalMs),
        backoffCoefficient: retryPolicy.backoffCoefficient,
        maximumInterval: msToDuration(retryPolicy.maximumIntervalMs),
        maximumAttempts: retryPolicy.maximumAttempts,
        nonRetryableErrorTypes: retryPolicy.nonRetryableErrorTypes,
      },
    },
  });
  run.activities.dispatch(toNumber(scheduled.eventId), attributes.requestEagerExecution === true && taskQueue === run.init.taskQueue ? identity : undefined);
}
