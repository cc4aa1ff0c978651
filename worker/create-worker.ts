/**
 * Builds the Temporal Worker: workflows from source (`workflowsPath`, bundled at start — tests and
 * development) or from a prebuilt bundle (`workflowBundle`, production; see scripts/build-workflow-bundle.ts).
 */
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';

export type WorkflowSource = { workflowsPath: string } | { workflowBundle: { codePath: string } };

export interface CreateWorkerParameters {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
  workflows: WorkflowSource;
  /** Extra Worker options (concurrency, interceptors, identity). */
  options?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>>;
}

export async function createWorker(parameters: CreateWorkerParameters): Promise<Worker> {
  return await Worker.create({
    connection: parameters.connection,
    namespace: parameters.namespace,
    taskQueue: parameters.taskQueue,
    activities: parameters.activities,
    ...parameters.workflows,
    ...parameters.options,
  });
}
