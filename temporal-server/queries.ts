/**
 * Query dispatch of the Temporal service (legacy QueryWorkflow): a query waits for the run's current
 * workflow task to finish, goes to a worker polling the run's task queue as a query task, and returns the
 * worker's answer (RespondQueryTaskCompleted) or DEADLINE_EXCEEDED when nobody answers in time.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { type RunRegistry } from './run-registry';
import { notFound, ServiceError } from './errors';
import { int64, temporal, WorkflowExecutionStatus } from './proto';
import { type TaskQueues } from './task-queues';
import { encodeTaskToken, decodeTaskToken, type TaskToken } from './task-tokens';
import { type WorkflowRun } from './workflow-state';

type PollWorkflowTaskResponse = temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse;
type QueryAnswer = temporal.api.workflowservice.v1.IRespondQueryTaskCompletedRequest;
const Enums = temporal.api.enums.v1;

interface PendingQuery {
  run: WorkflowRun;
  query: temporal.api.query.v1.IWorkflowQuery;
  dispatched: boolean;
  resolve(result: QueryAnswer): void;
}

export class QueryDispatcher {
  private readonly queries = new Map<number, PendingQuery>();
  private nextQueryId = 1;
  private outstanding = 0;

  constructor(
    private readonly registry: Pick<RunRegistry, 'findRun'>,
    private readonly workflowQueues: TaskQueues<PollWorkflowTaskResponse>,
    /** How long a query waits for a worker to answer when the call has no (shorter) deadline. */
    private readonly queryTimeoutMs: number,
    /** Called when a query ends (the virtual clock may move on). */
    private readonly settled: () => void,
  ) {}

  /** Queries waiting for, or being answered by, a worker. */
  get hasOutstanding(): boolean {
    return this.outstanding > 0;
  }

  /** Legacy query: waits for the current workflow task to finish, then dispatches a query task. */
  async query(request: temporal.api.workflowservice.v1.QueryWorkflowRequest, deadline: number): Promise<temporal.api.workflowservice.v1.IQueryWorkflowResponse> {
    const run = this.registry.findRun(request.execution);
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
    this.outstanding += 1;
    run.pendingQueries += 1;
    const timeoutMs = Math.max(0, Math.min(deadline - Date.now(), this.queryTimeoutMs));
    try {
      const answer = await new Promise<QueryAnswer | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        timer.unref();
        this.queries.set(id, {
          run,
          query: request.query ?? {},
          dispatched: false,
          resolve: (result) => {
            clearTimeout(timer);
            resolve(result);
          },
        });
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
      this.outstanding -= 1;
      run.pendingQueries -= 1;
      this.settled();
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

  /** RespondQueryTaskCompleted: hands the worker's answer to the waiting query. */
  respond(request: temporal.api.workflowservice.v1.RespondQueryTaskCompletedRequest): void {
    const token = decodeTaskToken(request.taskToken);
    const pending = token?.kind === 'query' ? this.queries.get(token.id) : undefined;
    if (!pending) throw notFound('query not found or already timed out');
    pending.resolve(request);
  }

  /** Dispatches the queries that waited for the run's workflow task, once no task is in flight. */
  releaseIfTaskDone(run: WorkflowRun): void {
    if (run.workflowTasks.task) return;
    for (const release of run.queriesAwaitingTask.splice(0)) release();
  }
}
