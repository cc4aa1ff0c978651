/**
 * The namespace engine of the in-memory Temporal service: it owns every workflow run, the task queues that
 * match tasks to polling workers, and the virtual clock. It implements the service's operations (start,
 * signal, query, cancel, terminate, history, describe, list, task polling and completion) on typed
 * requests; service.ts only adapts them to gRPC.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { VirtualClock } from './clock';
import { applyCommands, closesWorkflow, type CommandHost, validateCommands } from './commands';
import {
  durationToMs,
  EventType,
  int64,
  msToDuration,
  msToTimestamp,
  type Payloads,
  temporal,
  toNumber,
  WorkflowExecutionStatus,
} from './proto';
import { TaskQueues } from './task-queues';
import { matchesVisibilityQuery, parseVisibilityQuery } from './visibility';
import {
  decodeTaskToken,
  encodeTaskToken,
  type PendingActivity,
  type RunHost,
  type RunInit,
  type TaskToken,
  WorkflowRun,
} from './workflow-state';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;
type PollActivityTaskResponse = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;
type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
type Header = temporal.api.common.v1.IHeader;
const Enums = temporal.api.enums.v1;

/** An error carrying the gRPC status the service answers with, and optionally a typed error detail. */
export class ServiceError extends Error {
  constructor(
    readonly code: GrpcStatus,
    message: string,
    /** A google.protobuf.Any for google.rpc.Status.details (what clients decode into typed errors). */
    readonly detail?: { type_url: string; value: Uint8Array },
  ) {
    super(message);
  }
}

/** ALREADY_EXISTS with the WorkflowExecutionAlreadyStartedFailure detail, as the Temporal server answers. */
function alreadyStarted(message: string, run: WorkflowRun): ServiceError {
  const failure = temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure.encode({
    startRequestId: run.init.requestId,
    runId: run.runId,
    firstExecutionRunId: run.init.firstExecutionRunId,
  }).finish();
  return new ServiceError(GrpcStatus.ALREADY_EXISTS, message, {
    type_url: 'type.googleapis.com/temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
    value: failure,
  });
}

const notFound = (what: string) => new ServiceError(GrpcStatus.NOT_FOUND, what);

export interface EngineOptions {
  namespace: string;
  /** How long a task poll waits before answering "no task" (real servers: about a minute). */
  pollTimeoutMs: number;
  /** How long a query waits for a worker to answer when the call has no deadline. */
  queryTimeoutMs: number;
  /** Longest wait of a history long-poll before it answers with no new events. */
  historyLongPollMs: number;
}

const defaultWorkflowTaskTimeoutMs = 10_000;
const maxWorkflowTaskTimeoutMs = 120_000;

interface PendingQuery {
  run: WorkflowRun;
  query: temporal.api.query.v1.IWorkflowQuery;
  dispatched: boolean;
  resolve(result: temporal.api.workflowservice.v1.IRespondQueryTaskCompletedRequest): void;
}

export class NamespaceEngine implements RunHost, CommandHost {
  readonly clock: VirtualClock;
  readonly namespace: string;
  private readonly runs = new Map<string, WorkflowRun>();
  /** Runs of each workflow id, oldest first; the last is the current one. */
  private readonly chains = new Map<string, WorkflowRun[]>();
  private readonly running = new Set<WorkflowRun>();
  private readonly workflowQueues = new TaskQueues<PollWorkflowTaskResponse>();
  private readonly activityQueues = new TaskQueues<PollActivityTaskResponse>();
  private readonly historyWaiters = new Map<WorkflowRun, Set<() => void>>();
  private readonly queries = new Map<number, PendingQuery>();
  private nextQueryId = 1;
  private outstandingQueries = 0;

  constructor(readonly options: EngineOptions) {
    this.namespace = options.namespace;
    this.clock = new VirtualClock(() => this.isIdle());
  }

  /** Nothing in flight: no workflow or activity task waiting or being worked on, no query outstanding. */
  isIdle(): boolean {
    if (this.outstandingQueries > 0) return false;
    for (const run of this.running) if (run.busy) return false;
    return true;
  }

  stop(): void {
    this.clock.stop();
    this.workflowQueues.releaseAll();
    this.activityQueues.releaseAll();
    for (const waiters of this.historyWaiters.values()) for (const wake of waiters) wake();
  }

  // ---------------------------------------------------------------- RunHost

  enqueueWorkflowTask(run: WorkflowRun, taskQueue: string, dispatch: number): void {
    this.workflowQueues.get(taskQueue).offer((identity) => run.startWorkflowTask(identity, dispatch));
  }

  stickyQueueLive(taskQueue: string): boolean {
    return this.workflowQueues.get(taskQueue).hasLivePoller;
  }

  enqueueActivityTask(run: WorkflowRun, activity: PendingActivity): void {
    const { scheduledEventId, attempt } = activity;
    this.activityQueues.get(activity.taskQueue).offer((identity) => run.startActivity(scheduledEventId, attempt, identity));
  }

  historyGrew(run: WorkflowRun): void {
    const waiters = this.historyWaiters.get(run);
    if (!waiters) return;
    this.historyWaiters.delete(run);
    for (const wake of waiters) wake();
  }

  runClosed(run: WorkflowRun): void {
    this.running.delete(run);
    const parent = run.init.parent;
    const outcome = run.outcome;
    if (parent && outcome && outcome.status !== 'continuedAsNew') this.notifyParent(run, parent.run, parent.initiatedEventId);
    for (const child of run.children.values()) this.applyParentClosePolicy(child);
    this.clock.poke();
  }

  // ---------------------------------------------------------------- runs

  private currentRun(workflowId: string): WorkflowRun | undefined {
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

  private createRun(init: RunInit): WorkflowRun {
    const run = new WorkflowRun(this, init);
    this.runs.set(run.runId, run);
    const chain = this.chains.get(run.workflowId);
    if (chain) chain.push(run);
    else this.chains.set(run.workflowId, [run]);
    this.running.add(run);
    return run;
  }

  /**
   * Applies the id-conflict policy (running run) and id-reuse policy (closed run) before a start.
   * Returns an existing run when the start is a duplicate request or USE_EXISTING applies.
   */
  private checkStartAllowed(
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

  private startRun(
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

  startWorkflowExecution(request: temporal.api.workflowservice.v1.StartWorkflowExecutionRequest): temporal.api.workflowservice.v1.IStartWorkflowExecutionResponse {
    const existing = this.checkStartAllowed(request.workflowId, request.requestId, request.workflowIdReusePolicy, request.workflowIdConflictPolicy);
    if (existing) return { runId: existing.runId, started: false, status: existing.status };
    const run = this.startRun(request);
    run.start();
    return { runId: run.runId, started: true, status: run.status };
  }

  signalWithStartWorkflowExecution(
    request: temporal.api.workflowservice.v1.SignalWithStartWorkflowExecutionRequest,
  ): temporal.api.workflowservice.v1.ISignalWithStartWorkflowExecutionResponse {
    const current = this.currentRun(request.workflowId);
    const signal = { signalName: request.signalName, input: request.signalInput, header: request.header, identity: request.identity };
    if (current?.isRunning) {
      if (!current.seenRequest(request.requestId)) {
        current.rememberRequest(request.requestId);
        current.signal(signal);
      }
      return { runId: current.runId, started: false };
    }
    this.checkStartAllowed(
      request.workflowId,
      '',
      request.workflowIdReusePolicy,
      Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
    );
    const run = this.startRun(request);
    run.start(signal);
    return { runId: run.runId, started: true };
  }

  signalWorkflowExecution(request: temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest): void {
    const run = this.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    if (run.seenRequest(request.requestId)) return;
    run.rememberRequest(request.requestId);
    run.signal({ signalName: request.signalName, input: request.input, header: request.header, identity: request.identity });
  }

  requestCancelWorkflowExecution(request: temporal.api.workflowservice.v1.RequestCancelWorkflowExecutionRequest): void {
    const run = this.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    run.requestCancel({ identity: request.identity, reason: request.reason });
  }

  terminateWorkflowExecution(request: temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest): void {
    const run = this.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    run.terminate(request.reason, request.details, request.identity);
  }

  // ---------------------------------------------------------------- workflow tasks

  async pollWorkflowTaskQueue(
    request: temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest,
    onCancel: (hook: () => void) => void,
  ): Promise<PollWorkflowTaskResponse> {
    const queue = this.workflowQueues.get(request.taskQueue?.name ?? '');
    const response = await queue.poll(request.identity, this.options.pollTimeoutMs, onCancel);
    return response ?? {};
  }

  respondWorkflowTaskCompleted(request: temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest): temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedResponse {
    const { run, task } = this.workflowTaskFor(request.taskToken);
    const commands = request.commands ?? [];
    const invalid = validateCommands(run, commands);
    if (invalid) {
      run.failWorkflowTask(task, invalid.cause, { message: invalid.message }, request.identity);
    } else {
      run.completeWorkflowTask(request, closesWorkflow(commands), (completedEventId) =>
        applyCommands(this, run, commands, completedEventId, request.identity),
      );
    }
    this.releaseQueriesIfTaskDone(run);
    return { activityTasks: run.takeEagerActivityTasks() };
  }

  respondWorkflowTaskFailed(request: temporal.api.workflowservice.v1.RespondWorkflowTaskFailedRequest): void {
    const { run, task } = this.workflowTaskFor(request.taskToken);
    run.failWorkflowTask(task, request.cause, request.failure, request.identity);
    this.releaseQueriesIfTaskDone(run);
  }

  /** ResetStickyTaskQueue: the run's next tasks (and one waiting on the sticky queue) go to the normal queue. */
  resetStickyTaskQueue(request: temporal.api.workflowservice.v1.ResetStickyTaskQueueRequest): void {
    this.findRun(request.execution).resetStickiness();
  }

  /** ShutdownWorker: its sticky queue's polls end and the runs sticking to it fall back to the normal queue. */
  shutdownWorker(request: temporal.api.workflowservice.v1.ShutdownWorkerRequest): void {
    if (!request.stickyTaskQueue) return;
    this.workflowQueues.get(request.stickyTaskQueue).abandon();
    for (const run of this.running) if (run.sticky?.taskQueue === request.stickyTaskQueue) run.resetStickiness();
  }

  private workflowTaskFor(taskToken: Uint8Array) {
    const token = decodeTaskToken(taskToken);
    const run = token?.kind === 'workflow' ? this.runs.get(token.runId) : undefined;
    const task = token && run?.currentWorkflowTask(token);
    if (!run || !task) throw notFound('Workflow task not found.');
    return { run, task };
  }

  // ---------------------------------------------------------------- queries

  /** Legacy query: waits for the current workflow task to finish, then dispatches a query task. */
  async queryWorkflow(
    request: temporal.api.workflowservice.v1.QueryWorkflowRequest,
    deadline: number,
  ): Promise<temporal.api.workflowservice.v1.IQueryWorkflowResponse> {
    const run = this.findRun(request.execution);
    const reject = request.queryRejectCondition;
    if (
      (reject === Enums.QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_OPEN && !run.isRunning) ||
      (reject === Enums.QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_COMPLETED_CLEANLY &&
        !run.isRunning &&
        run.status !== WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED)
    ) {
      return { queryRejected: { status: run.status } };
    }
    const id = this.nextQueryId++;
    this.outstandingQueries += 1;
    run.pendingQueries += 1;
    const timeoutMs = Math.max(0, Math.min(deadline - Date.now(), this.options.queryTimeoutMs));
    try {
      const answer = await new Promise<temporal.api.workflowservice.v1.IRespondQueryTaskCompletedRequest | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        timer.unref();
        const pending: PendingQuery = {
          run,
          query: request.query ?? {},
          dispatched: false,
          resolve: (result) => {
            clearTimeout(timer);
            resolve(result);
          },
        };
        this.queries.set(id, pending);
        const dispatch = () => this.workflowQueues.get(run.init.taskQueue).offer(() => this.queryTask(id));
        if (run.isRunning && run.workflowTask) run.queriesAwaitingTask.push(dispatch);
        else dispatch();
      });
      if (!answer) throw new ServiceError(GrpcStatus.DEADLINE_EXCEEDED, 'query timed out: no worker answered');
      if (answer.completedType === Enums.QueryResultType.QUERY_RESULT_TYPE_FAILED) {
        throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, answer.errorMessage || 'query failed');
      }
      return { queryResult: answer.queryResult };
    } finally {
      this.queries.delete(id);
      this.outstandingQueries -= 1;
      run.pendingQueries -= 1;
      this.clock.poke();
    }
  }

  private queryTask(id: number): PollWorkflowTaskResponse | undefined {
    const pending = this.queries.get(id);
    if (!pending || pending.dispatched) return undefined;
    pending.dispatched = true;
    const run = pending.run;
    const token: TaskToken = { kind: 'query', workflowId: run.workflowId, runId: run.runId, id, attempt: 1 };
    return {
      taskToken: encodeTaskToken(token),
      workflowExecution: run.execution,
      workflowType: { name: run.init.workflowType },
      previousStartedEventId: int64(run.previousStartedEventId),
      startedEventId: int64(run.previousStartedEventId),
      history: { events: run.history.slice() },
      query: pending.query,
      workflowExecutionTaskQueue: { name: run.init.taskQueue, kind: Enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    };
  }

  respondQueryTaskCompleted(request: temporal.api.workflowservice.v1.RespondQueryTaskCompletedRequest): void {
    const token = decodeTaskToken(request.taskToken);
    const pending = token?.kind === 'query' ? this.queries.get(token.id) : undefined;
    if (!pending) throw notFound('query not found or already timed out');
    pending.resolve(request);
  }

  private releaseQueriesIfTaskDone(run: WorkflowRun): void {
    if (run.workflowTask) return;
    for (const release of run.queriesAwaitingTask.splice(0)) release();
  }

  // ---------------------------------------------------------------- activities

  async pollActivityTaskQueue(
    request: temporal.api.workflowservice.v1.PollActivityTaskQueueRequest,
    onCancel: (hook: () => void) => void,
  ): Promise<PollActivityTaskResponse> {
    const queue = this.activityQueues.get(request.taskQueue?.name ?? '');
    const response = await queue.poll(request.identity, this.options.pollTimeoutMs, onCancel);
    return response ?? {};
  }

  private activityByToken(taskToken: Uint8Array): { run: WorkflowRun; activity: PendingActivity } {
    const token = decodeTaskToken(taskToken);
    const run = token?.kind === 'activity' ? this.runs.get(token.runId) : undefined;
    const activity = token && run?.isRunning ? run.activityFor(token) : undefined;
    if (!run || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  private activityById(request: { workflowId?: string | null; runId?: string | null; activityId?: string | null }) {
    const run = this.findRun({ workflowId: request.workflowId, runId: request.runId });
    const scheduledEventId = run.activityIds.get(request.activityId ?? '');
    const activity = scheduledEventId === undefined ? undefined : run.activities.get(scheduledEventId);
    if (!run.isRunning || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  recordActivityTaskHeartbeat(taskToken: Uint8Array, details: Payloads | null | undefined): { cancelRequested: boolean } {
    const { run, activity } = this.activityByToken(taskToken);
    return { cancelRequested: run.heartbeatActivity(activity, details) };
  }

  recordActivityTaskHeartbeatById(request: temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatByIdRequest): { cancelRequested: boolean } {
    const { run, activity } = this.activityById(request);
    return { cancelRequested: run.heartbeatActivity(activity, request.details) };
  }

  respondActivityTaskCompleted(taskToken: Uint8Array, result: Payloads | null | undefined, identity: string): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.completeActivity(activity, result, identity);
  }

  respondActivityTaskCompletedById(request: temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.completeActivity(activity, request.result, request.identity);
  }

  respondActivityTaskFailed(
    taskToken: Uint8Array,
    failure: temporal.api.failure.v1.IFailure | null | undefined,
    identity: string,
    lastHeartbeatDetails?: Payloads | null,
  ): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.failActivity(activity, failure ?? { message: 'activity failed' }, identity, lastHeartbeatDetails);
  }

  respondActivityTaskFailedById(request: temporal.api.workflowservice.v1.RespondActivityTaskFailedByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.failActivity(activity, request.failure ?? { message: 'activity failed' }, request.identity, request.lastHeartbeatDetails);
  }

  respondActivityTaskCanceled(taskToken: Uint8Array, details: Payloads | null | undefined, identity: string): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.cancelActivityReported(activity, details, identity);
  }

  respondActivityTaskCanceledById(request: temporal.api.workflowservice.v1.RespondActivityTaskCanceledByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.cancelActivityReported(activity, request.details, request.identity);
  }

  // ---------------------------------------------------------------- CommandHost

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
    const next = this.createRun({
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
      this.checkStartAllowed(
        child.workflowId,
        '',
        initiated.workflowIdReusePolicy ?? 0,
        Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
      );
      run = this.startRun({ ...initiated, identity: parent.init.identity, requestId: randomUUID() }, { parent: { run: parent, initiatedEventId } });
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== GrpcStatus.ALREADY_EXISTS) throw error;
      parent.children.delete(initiatedEventId);
      parent.appendOrBuffer((time) => {
        parent.addEvent(
          EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
          {
            startChildWorkflowExecutionFailedEventAttributes: {
              namespace: this.namespace,
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
            namespace: this.namespace,
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
      namespace: this.namespace,
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
    const current = this.currentRun(child.workflowId);
    if (!current?.isRunning || current.init.firstExecutionRunId !== this.runs.get(child.runId)?.init.firstExecutionRunId) return;
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
              namespace: this.namespace,
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
            namespace: this.namespace,
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
              namespace: this.namespace,
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
            namespace: this.namespace,
            workflowExecution: { workflowId: target.workflowId, runId: target.runId },
          },
        },
        time,
      );
    }, true);
  }

  private lookupRunning(execution: WorkflowExecution | null | undefined): WorkflowRun | undefined {
    try {
      const run = this.findRun(execution);
      return run.isRunning ? run : undefined;
    } catch {
      return undefined;
    }
  }

  // ---------------------------------------------------------------- history

  async getWorkflowExecutionHistory(
    request: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest,
    deadline: number,
  ): Promise<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse> {
    const page = decodePageToken(request.nextPageToken);
    const run = this.findRun(page ? { workflowId: request.execution?.workflowId, runId: page.runId } : request.execution);
    const closeOnly = request.historyEventFilterType === Enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;
    const from = page?.next ?? 1;
    const waitUntil = Math.min(deadline - 500, Date.now() + this.options.historyLongPollMs);
    const hasNews = () => !run.isRunning || (!closeOnly && run.history.length >= from);
    if (request.waitNewEvent && !hasNews()) {
      await this.waitForHistory(run, waitUntil, hasNews);
    }
    if (closeOnly) {
      if (run.isRunning) return { history: { events: [] }, nextPageToken: encodePageToken(run.runId, from) };
      return { history: { events: run.history.slice(-1) } };
    }
    const pageSize = request.maximumPageSize > 0 ? request.maximumPageSize : 1000;
    const events = run.history.slice(from - 1, from - 1 + pageSize);
    const next = from + events.length;
    const more = next <= run.history.length || (request.waitNewEvent && run.isRunning);
    return { history: { events }, nextPageToken: more ? encodePageToken(run.runId, next) : undefined };
  }

  private waitForHistory(run: WorkflowRun, until: number, done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const wake = (): void => {
        if (done()) finish();
        else this.addHistoryWaiter(run, wake);
      };
      const timer = setTimeout(finish, Math.max(0, until - Date.now()));
      timer.unref();
      this.addHistoryWaiter(run, wake);
    });
  }

  private addHistoryWaiter(run: WorkflowRun, wake: () => void): void {
    let waiters = this.historyWaiters.get(run);
    if (!waiters) {
      waiters = new Set();
      this.historyWaiters.set(run, waiters);
    }
    waiters.add(wake);
  }

  // ---------------------------------------------------------------- describe and visibility

  executionInfo(run: WorkflowRun): temporal.api.workflow.v1.IWorkflowExecutionInfo {
    return {
      execution: run.execution,
      type: { name: run.init.workflowType },
      startTime: msToTimestamp(run.startTime),
      closeTime: run.closeTime !== undefined ? msToTimestamp(run.closeTime) : null,
      status: run.status,
      historyLength: int64(run.history.length),
      executionTime: msToTimestamp(run.startTime + run.init.firstWorkflowTaskBackoffMs),
      memo: run.memo,
      searchAttributes: run.searchAttributes,
      taskQueue: run.init.taskQueue,
      parentNamespaceId: run.init.parent ? this.namespace : '',
      parentExecution: run.init.parent?.run.execution ?? null,
      firstRunId: run.init.firstExecutionRunId,
      stateTransitionCount: int64(run.history.length),
    };
  }

  describeWorkflowExecution(request: temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest): temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse {
    const run = this.findRun(request.execution);
    return {
      executionConfig: {
        taskQueue: { name: run.init.taskQueue, kind: Enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        workflowExecutionTimeout: msToDuration(run.init.executionTimeoutMs),
        workflowRunTimeout: msToDuration(run.init.runTimeoutMs),
        defaultWorkflowTaskTimeout: msToDuration(run.init.taskTimeoutMs),
      },
      workflowExecutionInfo: this.executionInfo(run),
      pendingActivities: run.pendingActivityInfos(),
      pendingChildren: [...run.children.values()]
        .filter((child) => child.runId)
        .map((child) => ({
          workflowId: child.workflowId,
          runId: child.runId,
          workflowTypeName: child.workflowType,
          initiatedId: int64(child.initiatedEventId),
          parentClosePolicy: child.parentClosePolicy,
        })),
      pendingWorkflowTask: run.isRunning ? run.pendingWorkflowTaskInfo() : null,
    };
  }

  /** Runs matching a visibility query, newest first. */
  private matchingRuns(query: string): WorkflowRun[] {
    const filter = parseVisibilityQuery(query);
    const result: WorkflowRun[] = [];
    for (const run of this.runs.values()) if (matchesVisibilityQuery(filter, run)) result.push(run);
    return result.reverse();
  }

  listWorkflowExecutions(request: temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest): temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse {
    const matches = this.matchingRuns(request.query);
    const offset = request.nextPageToken?.length ? Number(Buffer.from(request.nextPageToken).toString('utf8')) : 0;
    const pageSize = request.pageSize > 0 ? request.pageSize : 1000;
    const page = matches.slice(offset, offset + pageSize);
    const next = offset + page.length;
    return {
      executions: page.map((run) => this.executionInfo(run)),
      nextPageToken: next < matches.length ? Buffer.from(String(next)) : undefined,
    };
  }

  countWorkflowExecutions(request: temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest): temporal.api.workflowservice.v1.ICountWorkflowExecutionsResponse {
    return { count: int64(this.matchingRuns(request.query).length) };
  }
}

function encodePageToken(runId: string, next: number): Buffer {
  return Buffer.from(JSON.stringify({ runId, next }));
}

function decodePageToken(bytes: Uint8Array | null | undefined): { runId: string; next: number } | undefined {
  if (!bytes?.length) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as { runId: string; next: number };
  } catch {
    throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, 'invalid next page token');
  }
}
