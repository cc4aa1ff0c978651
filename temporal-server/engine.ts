/**
 * The namespace engine of the in-memory Temporal service: it owns every workflow run, the task queues that
 * match tasks to polling workers, and the virtual clock. It implements the service's operations (start,
 * signal, query, cancel, terminate, history, describe, list, task polling and completion) on typed
 * requests; service.ts only adapts them to gRPC. Commands that reach other runs are in cross-run.ts, query
 * dispatch in queries.ts, activity heartbeats and outcomes (by token or id) in activity-completions.ts, history
 * reads in history-feed.ts, describe and list in execution-views.ts. With a RunStore (the durable mode) every
 * change of a run is handed to the store, and `restore` rebuilds the runs a store loaded.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { VirtualClock } from './clock';
import { applyCommands, closesWorkflow, validateCommands } from './commands';
import { ActivityCompletions } from './activity-completions';
import { CrossRunCommands } from './cross-run';
import { alreadyStarted, notFound, ServiceError } from './errors';
import { countExecutions, describeExecution, listExecutions } from './execution-views';
import { HistoryFeed } from './history-feed';
import { taskIdsAbove } from './history-events';
import { QueryDispatcher } from './queries';
import { durationToMs, type Payloads, temporal, WorkflowExecutionStatus } from './proto';
import { type PendingActivity, type RunActivities } from './run-activities';
import { type WorkflowTasks } from './run-workflow-tasks';
import { TaskQueues } from './task-queues';
import { decodeTaskToken } from './task-tokens';
import { type RunHost, type RunInit, type RunRecord, runInitFromHistory, WorkflowRun } from './workflow-state';

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
  /** Where runs are stored (durable mode); without one the engine keeps everything in memory only. */
  store?: RunStore;
}

/** Storage of runs, told of every change; `persisted()` resolves once all changes so far are stored. */
export interface RunStore {
  runChanged(run: WorkflowRun): void;
  persisted(): Promise<void>;
  /** A run rebuilt from what the store loaded: stored as it is. */
  adopt(run: WorkflowRun): void;
}

/** One run as a store loaded it: its history, request ids and what it keeps beside history. */
export interface LoadedRun {
  runId: string;
  requestId: string;
  requestIds: string[];
  history: temporal.api.history.v1.IHistoryEvent[];
  record?: RunRecord;
}

const defaultWorkflowTaskTimeoutMs = 10_000;
const maxWorkflowTaskTimeoutMs = 120_000;

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
  /** QueryWorkflow and RespondQueryTaskCompleted. */
  readonly queries: QueryDispatcher;
  /** Heartbeats and outcomes of activity attempts, by task token or by id. */
  readonly activityReports: ActivityCompletions;

  constructor(readonly options: EngineOptions) {
    this.namespace = options.namespace;
    this.clock = new VirtualClock(() => this.isIdle());
    this.historyFeed = new HistoryFeed(options.historyLongPollMs, (execution) => this.findRun(execution));
    this.crossRun = new CrossRunCommands(this);
    this.queries = new QueryDispatcher(this, this.workflowQueues, options.queryTimeoutMs, () => this.clock.poke());
    this.activityReports = new ActivityCompletions(this);
  }

  /** Runs not yet closed. */
  get openRunCount(): number {
    return this.running.size;
  }

  /** Nothing in flight: no workflow or activity task waiting or being worked on, no query outstanding. */
  isIdle(): boolean {
    if (this.queries.hasOutstanding) return false;
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

  runChanged(run: WorkflowRun): void {
    this.options.store?.runChanged(run);
  }

  /** Resolves once every change made so far is stored (at once in memory-only mode). */
  persisted(): Promise<void> | undefined {
    return this.options.store?.persisted();
  }

  /**
   * Rebuilds the runs a store loaded (oldest first): each run's state is its history folded through the
   * same `apply` the live runs use; then the open ones resume (timers, timeouts and tasks).
   */
  restore(loaded: LoadedRun[]): void {
    const restored: [WorkflowRun, LoadedRun][] = [];
    for (const entry of loaded) {
      const parentRunId = entry.history[0]?.workflowExecutionStartedEventAttributes?.parentWorkflowExecution?.runId;
      const parent = parentRunId ? this.runs.get(parentRunId) : undefined;
      const run = this.registerRun(new WorkflowRun(this, runInitFromHistory(entry.history, entry.runId, entry.requestId, parent)));
      run.replay(entry.history);
      for (const requestId of entry.requestIds) run.rememberRequest(requestId);
      for (const event of entry.history) taskIdsAbove(event);
      if (!run.isRunning) this.running.delete(run);
      this.options.store?.adopt(run);
      restored.push([run, entry]);
    }
    for (const [run, entry] of restored) run.resume(entry.record);
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
    return this.registerRun(new WorkflowRun(this, init));
  }

  private registerRun(run: WorkflowRun): WorkflowRun {
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
    this.queries.releaseIfTaskDone(run);
    return { activityTasks: run.activities.takeEagerTasks() };
  }

  respondWorkflowTaskFailed(request: temporal.api.workflowservice.v1.RespondWorkflowTaskFailedRequest): void {
    const { run, task } = this.workflowTaskFor(request.taskToken);
    run.workflowTasks.fail(task, request.cause, request.failure, request.identity);
    this.queries.releaseIfTaskDone(run);
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

  // ---------------------------------------------------------------- activities

  async pollActivityTaskQueue(
    request: temporal.api.workflowservice.v1.PollActivityTaskQueueRequest,
    onCancel: (hook: () => void) => void,
  ): Promise<PollActivityTaskResponse> {
    const queue = this.activityQueues.get(request.taskQueue?.name ?? '');
    const response = await queue.poll(request.identity, this.options.pollTimeoutMs, onCancel);
    return response ?? {};
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
