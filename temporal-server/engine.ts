/**
 * The namespace engine of the in-memory Temporal service: it owns every workflow run, the task queues that
 * match tasks to polling workers, and the virtual clock. It implements the service's operations (start,
 * signal, query, cancel, terminate, history, describe, list, task polling and completion) on typed
 * requests; service.ts only adapts them to gRPC. Commands that reach other runs are in cross-run.ts, history
 * reads in history-feed.ts, describe and list in execution-views.ts.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { VirtualClock } from './clock';
import { applyCommands, closesWorkflow, validateCommands } from './commands';
import { CrossRunCommands } from './cross-run';
import { alreadyStarted, notFound, ServiceError } from './errors';
import { countExecutions, describeExecution, listExecutions } from './execution-views';
import { HistoryFeed } from './history-feed';
import { durationToMs, int64, type Payloads, temporal, WorkflowExecutionStatus } from './proto';
import { type PendingActivity, type RunActivities } from './run-activities';
import { type WorkflowTasks } from './run-workflow-tasks';
import { TaskQueues } from './task-queues';
import { decodeTaskToken, encodeTaskToken, type TaskToken } from './task-tokens';
import { type RunHost, type RunInit, WorkflowRun } from './workflow-state';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;
type PollActivityTaskResponse = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;
type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
type Header = temporal.api.common.v1.IHeader;
const Enums = temporal.api.enums.v1;

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

export class NamespaceEngine implements RunHost {
  readonly clock: VirtualClock;
  readonly namespace: string;
  private readonly runs = new Map<string, WorkflowRun>();
  /** Runs of each workflow id, oldest first; the last is the current one. */
  private readonly chains = new Map<string, WorkflowRun[]>();
  private readonly running = new Set<WorkflowRun>();
  private readonly workflowQueues = new TaskQueues<PollWorkflowTaskResponse>();
  private readonly activityQueues = new TaskQueues<PollActivityTaskResponse>();
  private readonly historyFeed: HistoryFeed;
  private readonly crossRun: CrossRunCommands;
  private readonly queries = new Map<number, PendingQuery>();
  private nextQueryId = 1;
  private outstandingQueries = 0;

  constructor(readonly options: EngineOptions) {
    this.namespace = options.namespace;
    this.clock = new VirtualClock(() => this.isIdle());
    this.historyFeed = new HistoryFeed(options.historyLongPollMs, (execution) => this.findRun(execution));
    this.crossRun = new CrossRunCommands(this);
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
    this.historyFeed.wakeAll();
  }

  // ---------------------------------------------------------------- RunHost

  enqueueWorkflowTask(tasks: WorkflowTasks, taskQueue: string, dispatch: number): void {
    this.workflowQueues.get(taskQueue).offer((identity) => tasks.start(identity, dispatch));
  }

  stickyQueueLive(taskQueue: string): boolean {
    return this.workflowQueues.get(taskQueue).hasLivePoller;
  }

  enqueueActivityTask(activities: RunActivities, activity: PendingActivity): void {
    const { scheduledEventId, attempt } = activity;
    this.activityQueues.get(activity.taskQueue).offer((identity) => activities.start(scheduledEventId, attempt, identity));
  }

  historyGrew(run: WorkflowRun): void {
    this.historyFeed.historyGrew(run);
  }

  runClosed(run: WorkflowRun): void {
    this.running.delete(run);
    this.crossRun.runClosed(run);
    this.clock.poke();
  }

  // ---------------------------------------------------------------- runs

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
      run.workflowTasks.fail(task, invalid.cause, { message: invalid.message }, request.identity);
    } else {
      run.workflowTasks.complete(request, closesWorkflow(commands), (completedEventId) =>
        applyCommands(this.crossRun, run, commands, completedEventId, request.identity),
      );
    }
    this.releaseQueriesIfTaskDone(run);
    return { activityTasks: run.activities.takeEagerTasks() };
  }

  respondWorkflowTaskFailed(request: temporal.api.workflowservice.v1.RespondWorkflowTaskFailedRequest): void {
    const { run, task } = this.workflowTaskFor(request.taskToken);
    run.workflowTasks.fail(task, request.cause, request.failure, request.identity);
    this.releaseQueriesIfTaskDone(run);
  }

  /** ResetStickyTaskQueue: the run's next tasks (and one waiting on the sticky queue) go to the normal queue. */
  resetStickyTaskQueue(request: temporal.api.workflowservice.v1.ResetStickyTaskQueueRequest): void {
    this.findRun(request.execution).workflowTasks.resetStickiness();
  }

  /** ShutdownWorker: its sticky queue's polls end and the runs sticking to it fall back to the normal queue. */
  shutdownWorker(request: temporal.api.workflowservice.v1.ShutdownWorkerRequest): void {
    if (!request.stickyTaskQueue) return;
    this.workflowQueues.get(request.stickyTaskQueue).abandon();
    for (const run of this.running) if (run.workflowTasks.sticky?.taskQueue === request.stickyTaskQueue) run.workflowTasks.resetStickiness();
  }

  private workflowTaskFor(taskToken: Uint8Array) {
    const token = decodeTaskToken(taskToken);
    const run = token?.kind === 'workflow' ? this.runs.get(token.runId) : undefined;
    const task = token && run?.workflowTasks.startedTask(token);
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
        if (run.isRunning && run.workflowTasks.task) run.queriesAwaitingTask.push(dispatch);
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
      previousStartedEventId: int64(run.workflowTasks.previousStartedEventId),
      startedEventId: int64(run.workflowTasks.previousStartedEventId),
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
    if (run.workflowTasks.task) return;
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
    const activity = token && run?.isRunning ? run.activities.forToken(token) : undefined;
    if (!run || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  private activityById(request: { workflowId?: string | null; runId?: string | null; activityId?: string | null }) {
    const run = this.findRun({ workflowId: request.workflowId, runId: request.runId });
    const scheduledEventId = run.activities.ids.get(request.activityId ?? '');
    const activity = scheduledEventId === undefined ? undefined : run.activities.pending.get(scheduledEventId);
    if (!run.isRunning || !activity || activity.state !== 'started') throw notFound('activity task not found or already completed');
    return { run, activity };
  }

  recordActivityTaskHeartbeat(taskToken: Uint8Array, details: Payloads | null | undefined): { cancelRequested: boolean } {
    const { run, activity } = this.activityByToken(taskToken);
    return { cancelRequested: run.activities.heartbeat(activity, details) };
  }

  recordActivityTaskHeartbeatById(request: temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatByIdRequest): { cancelRequested: boolean } {
    const { run, activity } = this.activityById(request);
    return { cancelRequested: run.activities.heartbeat(activity, request.details) };
  }

  respondActivityTaskCompleted(taskToken: Uint8Array, result: Payloads | null | undefined, identity: string): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.activities.complete(activity, result, identity);
  }

  respondActivityTaskCompletedById(request: temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.activities.complete(activity, request.result, request.identity);
  }

  respondActivityTaskFailed(
    taskToken: Uint8Array,
    failure: temporal.api.failure.v1.IFailure | null | undefined,
    identity: string,
    lastHeartbeatDetails?: Payloads | null,
  ): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.activities.fail(activity, failure ?? { message: 'activity failed' }, identity, lastHeartbeatDetails);
  }

  respondActivityTaskFailedById(request: temporal.api.workflowservice.v1.RespondActivityTaskFailedByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.activities.fail(activity, request.failure ?? { message: 'activity failed' }, request.identity, request.lastHeartbeatDetails);
  }

  respondActivityTaskCanceled(taskToken: Uint8Array, details: Payloads | null | undefined, identity: string): void {
    const { run, activity } = this.activityByToken(taskToken);
    run.activities.reportCanceled(activity, details, identity);
  }

  respondActivityTaskCanceledById(request: temporal.api.workflowservice.v1.RespondActivityTaskCanceledByIdRequest): void {
    const { run, activity } = this.activityById(request);
    run.activities.reportCanceled(activity, request.details, request.identity);
  }

  // ---------------------------------------------------------------- history

  getWorkflowExecutionHistory(
    request: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest,
    deadline: number,
  ): Promise<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse> {
    return this.historyFeed.read(request, deadline);
  }

  // ---------------------------------------------------------------- describe and visibility

  describeWorkflowExecution(request: temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest): temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse {
    return describeExecution(this.namespace, this.findRun(request.execution));
  }

  listWorkflowExecutions(request: temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest): temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse {
    return listExecutions(this.namespace, this.runs.values(), request);
  }

  countWorkflowExecutions(request: temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest): temporal.api.workflowservice.v1.ICountWorkflowExecutionsResponse {
    return countExecutions(this.runs.values(), request);
  }
}
