/**
 * Commands whose effects reach other runs: continue-as-new, child workflows (their start, the report of a
 * closed child to its parent, the parent close policy) and signals and cancel requests to external
 * workflows. The namespace engine hands workflow-task commands here (it is the CommandHost) and calls
 * runClosed when a run closes.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { type CommandHost } from './commands';
import { type NamespaceEngine } from './engine';
import { ServiceError } from './errors';
import { durationToMs, EventType, int64, msToDuration, temporal, toNumber } from './proto';
import { type WorkflowRun } from './workflow-state';

type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
const Enums = temporal.api.enums.v1;

/** What the cross-run commands need from the namespace engine: finding, admitting and creating runs. */
export type RunRegistry = Pick<NamespaceEngine, 'namespace' | 'findRun' | 'currentRun' | 'runById' | 'checkStartAllowed' | 'startRun' | 'createRun'>;

export class CrossRunCommands implements CommandHost {
  constructor(private readonly engine: RunRegistry) {}

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
    run.close({ status: 'continuedAsNew', newRunId });
    const next = this.engine.createRun({
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
      this.engine.checkStartAllowed(
        child.workflowId,
        '',
        initiated.workflowIdReusePolicy ?? 0,
        Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
      );
      run = this.engine.startRun({ ...initiated, identity: parent.init.identity, requestId: randomUUID() }, { parent: { run: parent, initiatedEventId } });
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== GrpcStatus.ALREADY_EXISTS) throw error;
      parent.children.delete(initiatedEventId);
      parent.appendOrBuffer((time) => {
        parent.addEvent(
          EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
          {
            startChildWorkflowExecutionFailedEventAttributes: {
              namespace: this.engine.namespace,
              workflowId: child.workflowId,
              workflowType: { name: child.workflowType },
              cause: Enums.StartChildWorkflowExecutionFailedCause.START_CHILD_WORKFLOW_EXECUTION_FAILED_CAUSE_WORKFLOW_ALREADY_EXISTS,
              initiatedEventId: int64(initiatedEventId),
              workflowTaskCompletedEventId: initiated.workflowTaskCompletedEventId,
            },
          },
          time,
        );
      }, true);
      return;
    }
    child.runId = run.runId;
    parent.appendOrBuffer((time) => {
      const started = parent.addEvent(
        EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
        {
          childWorkflowExecutionStartedEventAttributes: {
            namespace: this.engine.namespace,
            initiatedEventId: int64(initiatedEventId),
            workflowExecution: run.execution,
            workflowType: { name: child.workflowType },
            header: initiated.header,
          },
        },
        time,
      );
      child.startedEventId = toNumber(started.eventId);
    }, true);
    run.start();
  }

  /** Reports a closed child run (the last of its chain) to its parent. */
  private notifyParent(childRun: WorkflowRun, parent: WorkflowRun, initiatedEventId: number): void {
    const child = parent.children.get(initiatedEventId);
    const outcome = childRun.outcome;
    if (!child || !parent.isRunning || !outcome) return;
    parent.children.delete(initiatedEventId);
    const common = () => ({
      namespace: this.engine.namespace,
      workflowExecution: { workflowId: child.workflowId, runId: childRun.runId },
      workflowType: { name: child.workflowType },
      initiatedEventId: int64(initiatedEventId),
      startedEventId: int64(child.startedEventId ?? 0),
    });
    parent.appendOrBuffer((time) => {
      switch (outcome.status) {
        case 'completed':
          parent.addEvent(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, { childWorkflowExecutionCompletedEventAttributes: { ...common(), result: outcome.result } }, time);
          break;
        case 'failed':
          parent.addEvent(
            EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
            { childWorkflowExecutionFailedEventAttributes: { ...common(), failure: outcome.failure, retryState: outcome.retryState } },
            time,
          );
          break;
        case 'canceled':
          parent.addEvent(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, { childWorkflowExecutionCanceledEventAttributes: { ...common(), details: outcome.details } }, time);
          break;
        case 'terminated':
          parent.addEvent(EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED, { childWorkflowExecutionTerminatedEventAttributes: common() }, time);
          break;
        case 'timedOut':
          parent.addEvent(
            EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
            { childWorkflowExecutionTimedOutEventAttributes: { ...common(), retryState: outcome.retryState } },
            time,
          );
          break;
        case 'continuedAsNew':
          break;
      }
    }, true);
  }

  private applyParentClosePolicy(child: { workflowId: string; runId?: string; parentClosePolicy: number }): void {
    if (!child.runId) return;
    const current = this.engine.currentRun(child.workflowId);
    if (!current?.isRunning || current.init.firstExecutionRunId !== this.engine.runById(child.runId)?.init.firstExecutionRunId) return;
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
      run.appendOrBuffer((time) => {
        run.addEvent(
          EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED,
          {
            signalExternalWorkflowExecutionFailedEventAttributes: {
              cause: Enums.SignalExternalWorkflowExecutionFailedCause.SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
              namespace: this.engine.namespace,
              workflowExecution: execution,
              initiatedEventId: int64(initiatedEventId),
              control: attributes.control,
            },
          },
          time,
        );
      }, true);
      return;
    }
    target.signal({ signalName: attributes.signalName ?? '', input: attributes.input, header: attributes.header, identity: '', externalExecution: run.execution });
    run.appendOrBuffer((time) => {
      run.addEvent(
        EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_SIGNALED,
        {
          externalWorkflowExecutionSignaledEventAttributes: {
            initiatedEventId: int64(initiatedEventId),
            namespace: this.engine.namespace,
            workflowExecution: { workflowId: target.workflowId, runId: target.runId },
            control: attributes.control,
          },
        },
        time,
      );
    }, true);
  }

  cancelExternal(
    run: WorkflowRun,
    initiatedEventId: number,
    attributes: temporal.api.command.v1.IRequestCancelExternalWorkflowExecutionCommandAttributes,
  ): void {
    const target = this.lookupRunning({ workflowId: attributes.workflowId, runId: attributes.runId });
    if (!target) {
      run.appendOrBuffer((time) => {
        run.addEvent(
          EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED,
          {
            requestCancelExternalWorkflowExecutionFailedEventAttributes: {
              cause: Enums.CancelExternalWorkflowExecutionFailedCause.CANCEL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND,
              namespace: this.engine.namespace,
              workflowExecution: { workflowId: attributes.workflowId, runId: attributes.runId },
              initiatedEventId: int64(initiatedEventId),
              control: attributes.control,
            },
          },
          time,
        );
      }, true);
      return;
    }
    target.requestCancel({ identity: '', reason: attributes.reason ?? '', externalInitiatedEventId: initiatedEventId, externalExecution: run.execution });
    run.appendOrBuffer((time) => {
      run.addEvent(
        EventType.EVENT_TYPE_EXTERNAL_WORKFLOW_EXECUTION_CANCEL_REQUESTED,
        {
          externalWorkflowExecutionCancelRequestedEventAttributes: {
            initiatedEventId: int64(initiatedEventId),
            namespace: this.engine.namespace,
            workflowExecution: { workflowId: target.workflowId, runId: target.runId },
          },
        },
        time,
      );
    }, true);
  }

  private lookupRunning(execution: WorkflowExecution | null | undefined): WorkflowRun | undefined {
    try {
      const run = this.engine.findRun(execution);
      return run.isRunning ? run : undefined;
    } catch {
      return undefined;
    }
  }
}
