/** The Temporal client of the workflows resource, and how its failures map to API errors. */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ApiError } from '../../../domain/errors';
import type { ApiServices } from '../../services';

export function requireTemporal(services: ApiServices): Client {
  if (!services.temporal) throw new ApiError('TEMPORAL_UNAVAILABLE', 'This API process has no workflow service configured');
  return services.temporal;
}

/** The gRPC status code of a client error, whether the SDK wrapped it (ServiceError's cause) or not. */
function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'number' ? code : undefined;
}

const GRPC_DEADLINE_EXCEEDED = 4;
const GRPC_NOT_FOUND = 5;
const GRPC_UNAVAILABLE = 14;

/** Runs a Temporal call: an unknown workflow is 404, an unreachable service 503. */
export async function withTemporal<T>(workflowId: string | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = grpcCode(error);
    if (error instanceof WorkflowNotFoundError || code === GRPC_NOT_FOUND) {
      throw new ApiError('WORKFLOW_NOT_FOUND', `No workflow ${workflowId ?? ''}`.trim(), { cause: error });
    }
    if (code === GRPC_UNAVAILABLE || code === GRPC_DEADLINE_EXCEEDED) {
      throw new ApiError('TEMPORAL_UNAVAILABLE', 'The workflow service did not answer', { cause: error });
    }
    throw error;
  }
}
