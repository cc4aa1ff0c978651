/**
 * gRPC handlers of the Temporal service: WorkflowService methods delegate to the NamespaceEngine,
 * TestService methods drive the virtual clock. Errors leave with the gRPC status Temporal uses for them
 * (NOT_FOUND, ALREADY_EXISTS, INVALID_ARGUMENT, DEADLINE_EXCEEDED); methods not listed here answer
 * UNIMPLEMENTED, as grpc-js does for any handler missing from a service.
 */
import * as grpc from '@grpc/grpc-js';
import { type NamespaceEngine } from './engine';
import { ServiceError } from './errors';
import { durationToMs, google, msToTimestamp, temporal, timestampToMs } from './proto';
import { VisibilityQueryError } from './visibility';

type Handler = grpc.UntypedHandleCall;

function toGrpcError(error: unknown): Partial<grpc.StatusObject> {
  if (error instanceof ServiceError && error.detail) {
    // Typed details travel as a serialized google.rpc.Status in the grpc-status-details-bin trailer.
    const metadata = new grpc.Metadata();
    const status = google.rpc.Status.encode({ code: error.code, message: error.message, details: [error.detail] }).finish();
    metadata.set('grpc-status-details-bin', Buffer.from(status));
    return { code: error.code, details: error.message, metadata };
  }
  if (error instanceof ServiceError || error instanceof VisibilityQueryError) return { code: error.code, details: error.message };
  return { code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}

function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  const ms = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(ms) ? ms : Infinity;
}

/**
 * Wraps a handler body: validates the namespace, maps thrown errors, and pokes the clock afterwards
 * (anything a call changes may let virtual time move on). In the durable mode a call that may change state
 * is answered only once its changes are stored (UNAVAILABLE if storing fails); `storedByBody` marks a call that
 * changes nothing, or whose body stores what it changed itself (a poll, which gives its task back when that fails,
 * and must not then fail on another call's write after its own succeeded).
 */
function unary<R>(
  engine: NamespaceEngine,
  body: (request: R, call: grpc.ServerUnaryCall<R, object>) => object | void | Promise<object | void>,
  storedByBody = false,
): Handler {
  const handler: grpc.handleUnaryCall<R, object> = (call, callback) => {
    const typed = call;
    const request = typed.request as R & { namespace?: string };
    if (request.namespace && request.namespace !== engine.namespace) {
      callback({ code: grpc.status.NOT_FOUND, details: `Namespace ${request.namespace} is not found.` });
      return;
    }
    Promise.resolve()
      .then(() => body(request, typed))
      .then(async (response) => {
        const stored = storedByBody ? undefined : engine.persisted();
        if (stored) await stored;
        return response;
      })
      .then(
        (response) => {
          engine.clock.poke();
          callback(null, response ?? {});
        },
        (error: unknown) => {
          engine.clock.poke();
          callback(toGrpcError(error));
        },
      );
  };
  return handler as Handler;
}

/** The WorkflowService implementation over one namespace engine. */
export function workflowServiceHandlers(engine: NamespaceEngine): grpc.UntypedServiceImplementation {
  const onCancel = (call: grpc.ServerUnaryCall<unknown, unknown>) => (hook: () => void) => {
    if (call.cancelled) hook();
    else call.on('cancelled', hook);
  };
  return {
    GetSystemInfo: unary(engine, () => ({
      serverVersion: '1.0.0-in-memory',
      capabilities: {
        signalAndQueryHeader: true,
        internalErrorDifferentiation: true,
        activityFailureIncludeHeartbeat: true,
        encodedFailureAttributes: true,
        upsertMemo: true,
        sdkMetadata: true,
      },
    }), true),
    GetClusterInfo: unary(engine, () => ({ serverVersion: '1.0.0-in-memory', clusterName: 'in-memory', historyShardCount: 1 }), true),
    DescribeNamespace: unary(engine, () => engine.describeNamespace(), true),
    StartWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.StartWorkflowExecutionRequest) => engine.startWorkflowExecution(request)),
    SignalWithStartWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.SignalWithStartWorkflowExecutionRequest) =>
      engine.signalWithStartWorkflowExecution(request),
    ),
    SignalWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest) => engine.signalWorkflowExecution(request)),
    RequestCancelWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.RequestCancelWorkflowExecutionRequest) =>
      engine.requestCancelWorkflowExecution(request),
    ),
    TerminateWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.TerminateWorkflowExecutionRequest) => engine.terminateWorkflowExecution(request)),
    QueryWorkflow: unary(engine, (request: temporal.api.workflowservice.v1.QueryWorkflowRequest, call) => engine.queries.query(request, deadlineOf(call)), true),
    DescribeWorkflowExecution: unary(engine, (request: temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest) => engine.describeWorkflowExecution(request), true),
    GetWorkflowExecutionHistory: unary(engine, (request: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest, call) =>
      engine.getWorkflowExecutionHistory(request, deadlineOf(call)),
    ),
    ListWorkflowExecutions: unary(engine, (request: temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest) => engine.listWorkflowExecutions(request), true),
    ListOpenWorkflowExecutions: unary(engine, (request: temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest) =>
      engine.listWorkflowExecutions(
        temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest.create({
          pageSize: request.maximumPageSize,
          nextPageToken: request.nextPageToken,
          query: "ExecutionStatus = 'Running'",
        }),
      ),
    ),
    CountWorkflowExecutions: unary(engine, (request: temporal.api.workflowservice.v1.CountWorkflowExecutionsRequest) => engine.countWorkflowExecutions(request), true),
    GetSearchAttributes: unary(engine, () => ({ keys: {} }), true),
    PollWorkflowTaskQueue: unary(
      engine,
      (request: temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest, call) => engine.pollWorkflowTaskQueue(request, onCancel(call)),
      true,
    ),
    RespondWorkflowTaskCompleted: unary(engine, (request: temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest) => engine.respondWorkflowTaskCompleted(request)),
    RespondWorkflowTaskFailed: unary(engine, (request: temporal.api.workflowservice.v1.RespondWorkflowTaskFailedRequest) => engine.respondWorkflowTaskFailed(request)),
    ResetStickyTaskQueue: unary(engine, (request: temporal.api.workflowservice.v1.ResetStickyTaskQueueRequest) => engine.resetStickyTaskQueue(request)),
    ShutdownWorker: unary(engine, (request: temporal.api.workflowservice.v1.ShutdownWorkerRequest) => engine.shutdownWorker(request)),
    RespondQueryTaskCompleted: unary(engine, (request: temporal.api.workflowservice.v1.RespondQueryTaskCompletedRequest) => engine.queries.respond(request)),
    PollActivityTaskQueue: unary(
      engine,
      (request: temporal.api.workflowservice.v1.PollActivityTaskQueueRequest, call) => engine.pollActivityTaskQueue(request, onCancel(call)),
      true,
    ),
    RecordActivityTaskHeartbeat: unary(engine, (request: temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest) =>
      engine.activityReports.heartbeat(request),
    ),
    RecordActivityTaskHeartbeatById: unary(engine, (request: temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatByIdRequest) =>
      engine.activityReports.heartbeatById(request),
    ),
    RespondActivityTaskCompleted: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskCompletedRequest) =>
      engine.activityReports.completed(request),
    ),
    RespondActivityTaskCompletedById: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskCompletedByIdRequest) =>
      engine.activityReports.completedById(request),
    ),
    RespondActivityTaskFailed: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskFailedRequest) =>
      engine.activityReports.failed(request),
    ),
    RespondActivityTaskFailedById: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskFailedByIdRequest) => engine.activityReports.failedById(request)),
    RespondActivityTaskCanceled: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskCanceledRequest) =>
      engine.activityReports.canceled(request),
    ),
    RespondActivityTaskCanceledById: unary(engine, (request: temporal.api.workflowservice.v1.RespondActivityTaskCanceledByIdRequest) =>
      engine.activityReports.canceledById(request),
    ),
  } satisfies Record<string, Handler>;
}


/** The time-skipping TestService, as Temporal's Java test server offers it. */
export function testServiceHandlers(engine: NamespaceEngine): grpc.UntypedServiceImplementation {
  const clock = engine.clock;
  return {
    LockTimeSkipping: unary(engine, () => {
      clock.lock();
    }),
    UnlockTimeSkipping: unary(engine, () => {
      if (!clock.timeSkippingLocked) throw new ServiceError(grpc.status.FAILED_PRECONDITION, 'Time skipping is not locked');
      clock.unlock();
    }),
    Sleep: unary(engine, (request: temporal.api.testservice.v1.SleepRequest) => clock.sleepUntil(clock.now() + durationToMs(request.duration))),
    SleepUntil: unary(engine, (request: temporal.api.testservice.v1.SleepUntilRequest) => clock.sleepUntil(timestampToMs(request.timestamp))),
    UnlockTimeSkippingWithSleep: unary(engine, async (request: temporal.api.testservice.v1.SleepRequest) => {
      const until = clock.now() + durationToMs(request.duration);
      clock.unlock();
      try {
        await clock.sleepUntil(until);
      } finally {
        clock.lock();
      }
    }),
    GetCurrentTime: unary(engine, () => ({ time: msToTimestamp(clock.now()) })),
  } satisfies Record<string, Handler>;
}
