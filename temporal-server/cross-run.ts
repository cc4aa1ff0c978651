/**
 * Commands whose effects reach other runs: continue-as-new, child workflows (their start, the report of a
 * closed child to its parent, the parent close policy) and signals and cancel requests to external
 * workflows. The namespace engine hands workflow-task commands here (it is the CommandHost) and calls
 * runClosed when a run closes.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { type CommandHost } from './commands';
import { ServiceError } from './errors';
import { durationToMs, EventType, int64, msToDuration, temporal } from './proto';
import { type PendingEvent } from './history-events';
import { type RunRegistry } from './run-registry';
import { type RunOutcome, type WorkflowRun } from './workflow-state';

type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
const Enums = temporal.api.enums.v1;

export class CrossRunCommands implements CommandHost {
  constructor(private readonly runs: RunRegistry) {}

  /** A run closed: reports it to its parent (unless it continued as new) and applies its children's parent close policy. */
  runClosed(run: WorkflowRun): void {
    const parent = run.init.parent;
    const outcome = run.outcome;
    if (parent && outcome && outcome.status !== 'continuedAsNew') this.notifyParent(run, parent.run, parent.initiatedEventId);
    for (const child of run.children.values()) this.applyParentClosePolicy(child);
  }

  continueAsNew(
    run: WorkflowRun,
    attributes: temporal.api.command.v1.IContinueAsNewWorkflowExecutionCommandAttributes,
    completedEventId: number,
  ): void {
    const newRunId = randomUUID();
    const init = run.init;
    const runTimeoutMs = durationToMs(attributes.workflowRunTimeout) || init.runTimeoutMs;
    const taskTimeoutMs = durationToMs(attributes.workflowTaskTimeout) || init.taskTimeoutMs;
    const workflowType = attributes.workflowType?.name || init.workflowType;
    const taskQueue = attributes.taskQueue?.name || init.taskQueue;
    const backoffMs = durationToMs(attributes.backoffStartInterval);
    run.addEvent(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, {
      workflowExecutionContinuedAsNewEventAttributes: {
        newExecutionRunId: newRunId,
        workflowType: { name: workflowType },
        taskQueue: { name: taskQueue, kind: Enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        input: attributes.input,
        workflowRunTimeout: msToDuration(runTimeoutMs),
        workflowTaskTimeout: msToDuration(taskTimeoutMs),
        workflowTaskCompletedEventId: int64(completedEventId),
        backoffStartInterval: attributes.backoffStartInterval,
        initiator: attributes.initiator,
        failure: attributes.failure,
        lastCompletionResult: attributes.lastCompletionResult,
        header: attributes.header,
        memo: attributes.memo,
        searchAttributes: attributes.searchAttributes,
      },
    });
    run.close();
    const next = this.runs.createRun({
      ...init,
      runId: newRunId,
      workflowType,
      taskQueue,
      input: attributes.input,
      header: attributes.header ?? init.header,
      memo: attributes.memo ?? run.memo,
      searchAttributes: attributes.searchAttributes ?? run.searchAttributes,
      runTimeoutMs,
      taskTimeoutMs,
      identity: init.identity,
      requestId: randomUUID(),
      retryPolicy: attributes.retryPolicy ?? init.retryPolicy,
      attempt: 1,
      continuedExecutionRunId: run.runId,
      initiator: attributes.initiator ?? Enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
      continuedFailure: attributes.failure,
      lastCompletionResult: attributes.lastCompletionResult,
      firstWorkflowTaskBackoffMs: backoffMs,
    });
    next.start();
  }

  startChild(parent: WorkflowRun, initiatedEventId: number): void {
    const child = parent.children.get(initiatedEventId);
    const initiated = parent.history[initiatedEventId - 1]?.startChildWorkflowExecutionInitiatedEventAttributes;
    if (!child || !initiated || !parent.isRunning) return;
    let run: WorkflowRun;
    try {
      this.runs.checkStartAllowed(
        child.workflowId,
        '',
        initiated.workflowIdReusePolicy ?? 0,
        Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
      );
      run = this.runs.startRun({ ...initiated, identity: parent.init.identity, requestId: randomUUID() }, { parent: { run: parent, initiatedEventId } });
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== GrpcStatus.ALREADY_EXISTS) throw error;
      parent.children.delete(initiatedEventId);
      parent.appendOrBuffer(
        [
          {
            eventType: EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
            attributes: {
              startChildWorkflowExecutionFailedEventAttributes: {
                namespace: this.runs.namespace,
                workflowId: child.workflowId,
                workflowType: { name: child.workflowType },
                cause: Enums.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
                initiatedEventId: int64(initiatedEventId),
                workflowTaskCompletedEventId: initiated.workflowTaskCompletedEventId,
              },
            },
          },
        ],
        true,
      );
      return;
    }
    child.runId = run.runId;
    parent.appendOrBuffer(
      [
        {
          eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
          attributes: {
            childWorkflowExecutionStartedEventAttributes: {
              namespace: this.runs.namespace,
              initiatedEventId: int64(initiatedEventId),
              workflowExecution: run.execution,
              workflowType: { name: child.workflowType },
              header: initiated.header,
            },
          },
        },
      ],
      true,
    );
    run.start();
  }

  /** Reports a closed child run (the last of its chain) to its parent. */
  private notifyParent(childRun: WorkflowRun, parent: WorkflowRun, initiatedEventId: number): void {
    const child = parent.children.get(initiatedEventId);
    const outcome = childRun.outcome;
    if (!child || !parent.isRunning || !outcome) return;
    parent.children.delete(initiatedEventId);
    const common = () => ({
      namespace: this.runs.namespace,
      workflowExecution: { workflowId: child.workflowId, runId: childRun.runId },
      workflowType: { name: child.workflowType },
      initiatedEventId: int64(initiatedEventId),
      startedEventId: int64(child.startedEventId ?? 0),
    });
    const event = childCloseEvent(outcome, common());
    if (event) parent.appendOrBuffer([event], true);
  }

  private applyParentClosePolicy(child: { workflowId: string; runId?: string; parentClosePolicy: number }): void {
    if (!child.runId) return;
    const current = this.runs.currentRun(child.workflowId);
    if (!current?.isRunning || current.init.firstExecutionRunId !== this.runs.runById(child.runId)?.init.firstExecutionRunId) return;
    if (child.parentClosePolicy === Enums.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) return;
    if (child.parentClosePolicy === Enums.ParentClosePolicy.PARENT_CLOSE_POLICY_REQUEST_CANCEL) {
      current.requestCancel({ identity: 'in-memory-temporal', reason: 'by parent close policy' });
      return;
    }
    current.terminate('by parent close policy', null, 'in-memory-temporal');
  }

  signalExternal(
    run: WorkflowRun,
    initiatedEventId: number,
    attributes: temporal.api.command.v1.ISignalExternalWorkflowExecutionCommandAttributes,
  ): void {
    const target = this.lookupRunning(attributes.execution);
    const execution = { workflowId: attributes.execution?.workflowId, runId: attributes.execution?.runId };
    if (!target) {
      run.appendOrBuffer(
        [
          {
            eventType: EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED,
            attributes: {
              signalExternalWorkflowExecutionFailedEventAttributes: {
                cause: Enums.SignalExternalWorkflowExecutionFailedCause.SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
                namespace: this.runs.namespace,
                workflowExecution: execution,
                initiatedEventId: int64(initiatedEventId),
                control: attributes.control,
              },
            },
          },
        ],
        true,
      );
      return;
    }
    target.signal({ signalName: attributes.signalName ?? '', input: attributes.input, header: attributes.header, identity: '', externalExecution: run.execution });
    run.appendOrBuffer(
      [
        {
          eventType: EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED,
          attributes: {
            externalWorkflowExecutionSignaledEventAttributes: {
              initiatedEventId: int64(initiatedEventId),
              namespace: this.runs.namespace,
              workflowExecution: { workflowId: target.workflowId, runId: target.runId },
              control: attributes.control,
            },
          },
        },
      ],
      true,
    );
  }

  cancelExternal(
    run: WorkflowRun,
    initiatedEventId: number,
    attributes: temporal.api.command.v1.IRequestCancelExternalWorkflowExecutionCommandAttributes,
  ): void {
    const target = this.lookupRunning({ workflowId: attributes.workflowId, runId: attributes.runId });
    if (!target) {
      run.appendOrBuffer(
        [
          {
            eventType: EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED,
            attributes: {
              requestCancelExternalWorkflowExecutionFailedEventAttributes: {
                cause: Enums.CancelExternalWorkflowExecutionFailedCause.CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
                namespace: this.runs.namespace,
                workflowExecution: { workflowId: attributes.workflowId, runId: attributes.runId },
                initiatedEventId: int64(initiatedEventId),
                control: attributes.control,
              },
            },
          },
        ],
        true,
      );
      return;
    }
    target.requestCancel({ identity: '', reason: attributes.reason ?? '', externalInitiatedEventId: initiatedEventId, externalExecution: run.execution });
    run.appendOrBuffer(
      [
        {
          eventType: EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
          attributes: {
            externalWorkflowExecutionCancelRequestedEventAttributes: {
              initiatedEventId: int64(initiatedEventId),
              namespace: this.runs.namespace,
              workflowExecution: { workflowId: target.workflowId, runId: target.runId },
            },
          },
        },
      ],
      true,
    );
  }

  private lookupRunning(execution: WorkflowExecution | null | undefined): WorkflowRun | undefined {
    try {
      const run = this.runs.findRun(execution);
      return run.isRunning ? run : undefined;
    } catch {
      return undefined;
    }
  }
}

type ChildCommon = {
  namespace: string;
  workflowExecution: WorkflowExecution;
  workflowType: temporal.api.common.v1.IWorkflowType;
  initiatedEventId: ReturnType<typeof int64>;
  startedEventId: ReturnType<typeof int64>;
};

/** The event telling a parent how its child's chain of runs ended (none for continue-as-new). */
function childCloseEvent(outcome: RunOutcome, common: ChildCommon): PendingEvent | undefined {
  switch (outcome.status) {
    case 'completed':
      return { eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, attributes: { childWorkflowExecutionCompletedEventAttributes: { ...common, result: outcome.result } } };
    case 'failed':
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
        attributes: { childWorkflowExecutionFailedEventAttributes: { ...common, failure: outcome.failure, retryState: outcome.retryState } },
      };
    case 'canceled':
      return { eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, attributes: { childWorkflowExecutionCanceledEventAttributes: { ...common, details: outcome.details } } };
    case 'terminated':
      return { eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED, attributes: { childWorkflowExecutionTerminatedEventAttributes: common } };
    case 'timedOut':
      return {
        eventType: EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
        attributes: { childWorkflowExecutionTimedOutEventAttributes: { ...common, retryState: outcome.retryState } },
      };
    case 'continuedAsNew':
      return undefined;
  }
}
