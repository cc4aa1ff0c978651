/**
 * The namespace engine of the in-memory Temporal service: it owns the runs (through its run registry), the task queues that
 * match tasks to polling workers, and the virtual clock. It implements the service's operations (start,
 * signal, query, cancel, terminate, history, describe, list, task polling and completion) on typed
 * requests; service.ts only adapts them to gRPC. The runs themselves (found by id, admitted under the id policies,
 * created) are in run-registry.ts; commands that reach other runs are in cross-run.ts, query
 * dispatch in queries.ts, activity heartbeats and outcomes (by token or id) in activity-completions.ts, history
 * reads in history-feed.ts, describe and list in execution-views.ts. With a RunStore (the durable mode) every
 * change of a run is handed to the store, and `restore` rebuilds the runs a store loaded.
 */
import { VirtualClock } from './clock';
import { applyCommands, closingCommand, validateCommands } from './commands';
import { ActivityCompletions } from './activity-completions';
import { CrossRunCommands } from './cross-run';
import { notFound } from './errors';
import { countExecutions, describeExecution, listExecutions } from './execution-views';
import { HistoryFeed } from './history-feed';
import { taskIdsAbove } from './history-events';
import { QueryDispatcher } from './queries';
import { RunRegistry } from './run-registry';
import { temporal } from './proto';
import { type PendingActivity, type RunActivities } from './run-activities';
import { type WorkflowTasks } from './run-workflow-tasks';
import { type PollingWorker, TaskQueues } from './task-queues';
import { decodeTaskToken, type TaskToken } from './task-tokens';
import { type RunHost, type RunRecord, runInitFromHistory, WorkflowRun } from './workflow-state';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;
type PollActivityTaskResponse = temporal.api.workflowservice.v1.IPollActivityTaskQueueResponse;
const Enums = temporal.api.enums.v1;

/**
 * How many shut-down workers' instance keys are kept: enough for a poll sent just before a ShutdownWorker that
 * arrives after it (answered at once rather than left waiting a minute) — the keys of many restarts.
 */
const SHUT_DOWN_WORKERS_KEPT = 1_024;

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

export class NamespaceEngine implements RunHost {
  readonly clock: VirtualClock;
  readonly namespace: string;
  /** Every run of the namespace, by run id and by workflow id. */
  readonly runs: RunRegistry;
  private readonly workflowQueues = new TaskQueues<PollWorkflowTaskResponse>();
  private readonly activityQueues = new TaskQueues<PollActivityTaskResponse>();
  /** Instance keys of workers that said they shut down (the newest SHUT_DOWN_WORKERS_KEPT): their polls get nothing. */
  private readonly shutDownWorkers = new Set<string>();
  private readonly historyFeed: HistoryFeed;
  private readonly crossRun: CrossRunCommands;
  /** QueryWorkflow and RespondQueryTaskCompleted. */
  readonly queries: QueryDispatcher;
  /** Heartbeats and outcomes of activity attempts, by task token or by id. */
  readonly activityReports: ActivityCompletions;

  constructor(readonly options: EngineOptions) {
    this.namespace = options.namespace;
    this.clock = new VirtualClock(() => this.isIdle());
    this.runs = new RunRegistry(options.namespace, this, this.clock);
    this.historyFeed = new HistoryFeed(options.historyLongPollMs, (execution) => this.runs.findRun(execution));
    this.crossRun = new CrossRunCommands(this.runs);
    this.queries = new QueryDispatcher(this.runs, this.workflowQueues, options.queryTimeoutMs, () => this.clock.poke());
    this.activityReports = new ActivityCompletions(this.runs);
  }

  /** Runs not yet closed. */
  get openRunCount(): number {
    return this.runs.open.size;
  }

  /** Nothing in flight: no workflow or activity task waiting or being worked on, no query outstanding. */
  isIdle(): boolean {
    if (this.queries.hasOutstanding) return false;
    for (const run of this.runs.open) if (run.busy) return false;
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
      const parent = parentRunId ? this.runs.runById(parentRunId) : undefined;
      const run = this.runs.register(new WorkflowRun(this, runInitFromHistory(entry.history, entry.runId, entry.requestId, parent)));
      run.replay(entry.history);
      for (const requestId of entry.requestIds) run.rememberRequest(requestId);
      for (const event of entry.history) taskIdsAbove(event);
      if (!run.isRunning) this.runs.open.delete(run);
      this.options.store?.adopt(run);
      restored.push([run, entry]);
    }
    for (const [run, entry] of restored) run.resume(entry.record);
  }

  runClosed(run: WorkflowRun): void {
    this.runs.open.delete(run);
    this.crossRun.runClosed(run);
    this.clock.poke();
  }

  startWorkflowExecution(request: temporal.api.workflowservice.v1.StartWorkflowExecutionRequest): temporal.api.workflowservice.v1.IStartWorkflowExecutionResponse {
    const existing = this.runs.checkStartAllowed(request.workflowId, request.requestId, request.workflowIdReusePolicy, request.workflowIdConflictPolicy);
    if (existing) return { runId: existing.runId, started: false, status: existing.status };
    const run = this.runs.startRun(request);
    run.start();
    return { runId: run.runId, started: true, status: run.status };
  }

  signalWithStartWorkflowExecution(
    request: temporal.api.workflowservice.v1.SignalWithStartWorkflowExecutionRequest,
  ): temporal.api.workflowservice.v1.ISignalWithStartWorkflowExecutionResponse {
    const current = this.runs.currentRun(request.workflowId);
    const signal = { signalName: request.signalName, input: request.signalInput, header: request.header, identity: request.identity };
    if (current?.isRunning) {
      if (!current.seenRequest(request.requestId)) {
        current.rememberRequest(request.requestId);
        current.signal(signal);
      }
      return { runId: current.runId, started: false };
    }
    this.runs.checkStartAllowed(
      request.workflowId,
      '',
      request.workflowIdReusePolicy,
      Enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
    );
    const run = this.runs.startRun(request);
    run.start(signal);
    return { runId: run.runId, started: true };
  }

  signalWorkflowExecution(request: temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest): void {
    const run = this.runs.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    if (run.seenRequest(request.requestId)) return;
    run.rememberRequest(request.requestId);
    run.signal({ signalName: request.signalName, input: request.input, header: request.header, identity: request.identity });
  }

  requestCancelWorkflowExecution(request: temporal.api.workflowservice.v1.RequestCancelWorkflowExecutionRequest): void {
    const run = this.runs.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    run.requestCancel({ identity: request.identity, reason: request.reason });
  }

  terminateWorkflowExecution(request: temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest): void {
    const run = this.runs.findRun(request.workflowExecution);
    if (!run.isRunning) throw notFound('workflow execution already completed');
    run.terminate(request.reason, request.details, request.identity);
  }

  /**
   * DescribeNamespace: the one namespace, and the capability workers read from it — polls are answered when their
   * worker shuts down (`shutdownWorker`), so a worker lets them return instead of cutting them off, which could drop a
   * task handed over at that moment (it would wait for its timeout).
   */
  describeNamespace(): temporal.api.workflowservice.v1.IDescribeNamespaceResponse {
    return {
      namespaceInfo: {
        name: this.namespace,
        state: Enums.NamespaceState.NAMESPACE_STATE_REGISTERED,
        capabilities: { workerPollCompleteOnShutdown: true },
      },
      isGlobalNamespace: false,
    };
  }

  // ---------------------------------------------------------------- workflow tasks

  async pollWorkflowTaskQueue(
    request: temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest,
    onCancel: (hook: () => void) => void,
  ): Promise<PollWorkflowTaskResponse> {
    if (this.hasShutDown(request)) return {};
    const queue = this.workflowQueues.get(request.taskQueue?.name ?? '');
    const response = await queue.poll(request, this.options.pollTimeoutMs, onCancel);
    // No worker holds a task whose poll failed: timed out at once and offered again, rather than after its timeout.
    return response ? this.handOver(response, 'workflow', (run, token) => run.workflowTasks.abandonStarted(token)) : {};
  }

  respondWorkflowTaskCompleted(request: temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest): temporal.api.workflowservice.v1.IRespondWorkflowTaskCompletedResponse {
    const { run, task } = this.workflowTaskFor(request.taskToken);
    const commands = request.commands ?? [];
    const invalid = validateCommands(run, commands);
    if (invalid) {
      run.workflowTasks.fail(task, invalid.cause, { message: invalid.message }, request.identity);
    } else {
      run.workflowTasks.complete(request, closingCommand(commands), (completedEventId) =>
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
    this.runs.findRun(request.execution).workflowTasks.resetStickiness();
  }

  /**
   * ShutdownWorker: the worker's waiting polls are answered with no task, and polls it sends later too (see
   * `workerPollCompleteOnShutdown`); its sticky queue's polls end and the runs sticking to it fall back to the normal
   * queue.
   */
  shutdownWorker(request: temporal.api.workflowservice.v1.ShutdownWorkerRequest): void {
    if (request.workerInstanceKey) {
      this.shutDownWorkers.add(request.workerInstanceKey);
      if (this.shutDownWorkers.size > SHUT_DOWN_WORKERS_KEPT) this.shutDownWorkers.delete(this.shutDownWorkers.values().next().value!);
      this.workflowQueues.releaseWorker(request.workerInstanceKey);
      this.activityQueues.releaseWorker(request.workerInstanceKey);
    }
    if (!request.stickyTaskQueue) return;
    this.workflowQueues.get(request.stickyTaskQueue).abandon();
    for (const run of this.runs.open) if (run.workflowTasks.sticky?.taskQueue === request.stickyTaskQueue) run.workflowTasks.resetStickiness();
  }

  private hasShutDown(poller: PollingWorker): boolean {
    return !!poller.workerInstanceKey && this.shutDownWorkers.has(poller.workerInstanceKey);
  }

  private workflowTaskFor(taskToken: Uint8Array) {
    const token = decodeTaskToken(taskToken);
    const run = token?.kind === 'workflow' ? this.runs.runById(token.runId) : undefined;
    const task = token && run?.workflowTasks.startedTask(token);
    if (!run || !task) throw notFound('Workflow task not found.');
    return { run, task };
  }

  // ---------------------------------------------------------------- activities

  async pollActivityTaskQueue(
    request: temporal.api.workflowservice.v1.PollActivityTaskQueueRequest,
    onCancel: (hook: () => void) => void,
  ): Promise<PollActivityTaskResponse> {
    if (this.hasShutDown(request)) return {};
    const queue = this.activityQueues.get(request.taskQueue?.name ?? '');
    const response = await queue.poll(request, this.options.pollTimeoutMs, onCancel);
    // The attempt goes back to its queue as it was, rather than waiting out its start-to-close timeout as a lost attempt.
    return response ? this.handOver(response, 'activity', (run, token) => run.activities.returnToQueue(token)) : {};
  }

  /**
   * Answers a poll with the task it took once the task's start is stored, as the server records a start before
   * handing the task over. A start that cannot be stored (PostgreSQL down) fails the poll (UNAVAILABLE; the SDK polls
   * again), and `giveBack` returns the task, which no worker holds.
   */
  private async handOver<T extends { taskToken?: Uint8Array | null }>(
    response: T,
    kind: TaskToken['kind'],
    giveBack: (run: WorkflowRun, token: TaskToken) => void,
  ): Promise<T> {
    try {
      await this.persisted();
    } catch (error) {
      const token = decodeTaskToken(response.taskToken!);
      const run = token?.kind === kind ? this.runs.runById(token.runId) : undefined;
      if (token && run) giveBack(run, token);
      throw error;
    }
    return response;
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
    return describeExecution(this.namespace, this.runs.findRun(request.execution));
  }

  listWorkflowExecutions(request: temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest): temporal.api.workflowservice.v1.IListWorkflowExecutionsResponse {
    return listExecutions(this.namespace, this.runs.all(), request);
  }

  countWorkflowExecutions(request: temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest): temporal.api.workflowservice.v1.ICountWorkflowExecutionsResponse {
    return countExecutions(this.runs.all(), request);
  }
}
