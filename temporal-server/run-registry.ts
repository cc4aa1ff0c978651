/**
 * The runs of one namespace: every run by run id, the runs of each workflow id (oldest first, the last one current)
 * and the set still open; admitting a start under the id-reuse and id-conflict policies, and creating runs. The
 * engine, the cross-run commands, query dispatch and activity completions all find runs here.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { alreadyStarted, notFound, ServiceError } from './errors';
import { durationToMs, type Payloads, temporal, WorkflowExecutionStatus } from './proto';
import { type RunHost, type RunInit, WorkflowRun } from './workflow-state';

type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
type Header = temporal.api.common.v1.IHeader;
const Enums = temporal.api.enums.v1;

const defaultWorkflowTaskTimeoutMs = 10_000;
const maxWorkflowTaskTimeoutMs = 120_000;

export class RunRegistry {
  private readonly runs = new Map<string, WorkflowRun>();
  /** Runs of each workflow id, oldest first; the last is the current one. */
  private readonly chains = new Map<string, WorkflowRun[]>();
  /** Runs not yet closed. */
  readonly open = new Set<WorkflowRun>();

  constructor(
    readonly namespace: string,
    private readonly host: RunHost,
    private readonly clock: { now(): number },
  ) {}

  /** Every run, open or closed. */
  all(): IterableIterator<WorkflowRun> {
    return this.runs.values();
  }

  /** The latest run of a workflow id. */
  currentRun(workflowId: string): WorkflowRun | undefined {
    const chain = this.chains.get(workflowId);
    return chain?.[chain.length - 1];
  }

  /** The run an execution refers to: by run id, or the current run of the workflow id. */
  findRun(execution: WorkflowExecution | null | undefined): WorkflowRun {
    const workflowId = execution?.workflowId ?? '';
    const runId = execution?.runId ?? '';
    const run = runId ? this.runs.get(runId) : this.currentRun(workflowId);
    if (!run || run.workflowId !== workflowId) {
      throw notFound(`workflow execution not found for workflow ID "${workflowId}"${runId ? ` and run ID "${runId}"` : ''}`);
    }
    return run;
  }

  runById(runId: string): WorkflowRun | undefined {
    return this.runs.get(runId);
  }

  createRun(init: RunInit): WorkflowRun {
    return this.register(new WorkflowRun(this.host, init));
  }

  /** Adds a run (new, or rebuilt from a store) under its run id and as the current run of its workflow id. */
  register(run: WorkflowRun): WorkflowRun {
    this.runs.set(run.runId, run);
    const chain = this.chains.get(run.workflowId);
    if (chain) chain.push(run);
    else this.chains.set(run.workflowId, [run]);
    this.open.add(run);
    return run;
  }

  /**
   * Applies the id-conflict policy (running run) and id-reuse policy (closed run) before a start.
   * Returns an existing run when the start is a duplicate request or USE_EXISTING applies.
   */
  checkStartAllowed(
    workflowId: string,
    requestId: string,
    reusePolicy: temporal.api.enums.v1.WorkflowIdReusePolicy,
    conflictPolicy: temporal.api.enums.v1.WorkflowIdConflictPolicy,
  ): WorkflowRun | undefined {
    const current = this.currentRun(workflowId);
    if (!current) return undefined;
    if (current.seenRequest(requestId)) return current;
    if (current.isRunning) {
      if (conflictPolicy === Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) return current;
      const terminate =
        conflictPolicy === Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING ||
        reusePolicy === Enums.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING;
      if (!terminate) {
        throw alreadyStarted(`Workflow execution is already running. WorkflowId: ${workflowId}, RunId: ${current.runId}.`, current);
      }
      current.terminate('terminated by a start with the same workflow id', null, 'in-memory-temporal');
      return undefined;
    }
    if (reusePolicy === Enums.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE) {
      throw alreadyStarted(`Workflow execution already finished and id reuse policy rejects duplicates. WorkflowId: ${workflowId}.`, current);
    }
    if (
      reusePolicy === Enums.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY &&
      current.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED
    ) {
      throw alreadyStarted(`Workflow execution already completed successfully. WorkflowId: ${workflowId}.`, current);
    }
    return undefined;
  }

  /** Validates a start request and creates its run (not yet started); `extra` overrides the derived RunInit. */
  startRun(
    request: {
      workflowId?: string | null;
      workflowType?: temporal.api.common.v1.IWorkflowType | null;
      taskQueue?: temporal.api.taskqueue.v1.ITaskQueue | null;
      input?: Payloads | null;
      header?: Header | null;
      memo?: temporal.api.common.v1.IMemo | null;
      searchAttributes?: temporal.api.common.v1.ISearchAttributes | null;
      workflowExecutionTimeout?: { seconds?: unknown } | null;
      workflowRunTimeout?: { seconds?: unknown } | null;
      workflowTaskTimeout?: { seconds?: unknown } | null;
      workflowStartDelay?: { seconds?: unknown } | null;
      identity?: string | null;
      requestId?: string | null;
      retryPolicy?: temporal.api.common.v1.IRetryPolicy | null;
    },
    extra: Partial<RunInit> = {},
  ): WorkflowRun {
    const workflowId = request.workflowId ?? '';
    if (!workflowId) throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, 'WorkflowId is not set on request.');
    if (!request.workflowType?.name) throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, 'WorkflowType is not set on request.');
    if (!request.taskQueue?.name) throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, 'TaskQueue is not set on request.');
    const executionTimeoutMs = durationToMs(request.workflowExecutionTimeout as never);
    let runTimeoutMs = durationToMs(request.workflowRunTimeout as never);
    if (executionTimeoutMs > 0 && (runTimeoutMs === 0 || runTimeoutMs > executionTimeoutMs)) runTimeoutMs = executionTimeoutMs;
    const requestedTaskTimeout = durationToMs(request.workflowTaskTimeout as never);
    const taskTimeoutMs = Math.min(requestedTaskTimeout || defaultWorkflowTaskTimeoutMs, maxWorkflowTaskTimeoutMs, runTimeoutMs || Infinity);
    const runId = randomUUID();
    return this.createRun({
      workflowId,
      runId,
      workflowType: request.workflowType.name,
      taskQueue: request.taskQueue.name,
      input: request.input,
      header: request.header,
      memo: request.memo,
      searchAttributes: request.searchAttributes,
      executionTimeoutMs,
      runTimeoutMs,
      taskTimeoutMs,
      executionExpirationTime: executionTimeoutMs > 0 ? this.clock.now() + executionTimeoutMs : 0,
      identity: request.identity ?? '',
      requestId: request.requestId || randomUUID(),
      retryPolicy: request.retryPolicy,
      attempt: 1,
      firstExecutionRunId: runId,
      firstWorkflowTaskBackoffMs: durationToMs(request.workflowStartDelay as never),
      ...extra,
    });
  }
}
