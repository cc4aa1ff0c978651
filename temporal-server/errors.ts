/**
 * Errors of the in-memory service: each carries the gRPC status the service answers with, and optionally
 * the typed error detail the Temporal client decodes (as the real server sends it).
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { temporal } from './proto';
import { type WorkflowRun } from './workflow-state';

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
export function alreadyStarted(message: string, run: WorkflowRun): ServiceError {
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

export const notFound = (what: string) => new ServiceError(GrpcStatus.NOT_FOUND, what);
