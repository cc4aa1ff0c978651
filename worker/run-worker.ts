/**
 * The one place a Temporal SDK worker is made and run, for the product, the tests and the benchmarks: connects to
 * the service, builds the Worker over workflows from source (`workflowsPath`, bundled at start), a prebuilt bundle
 * file (`codePath`, production: scripts/build-workflow-bundle.ts) or bundle code (the tests' cached bundles), runs
 * it, and stops it: in-flight tasks drained, then the connection closed.
 */
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';

export type WorkflowSource = { workflowsPath: string } | { workflowBundle: { codePath: string } | { code: string } };

export interface RunWorkerParameters {
  /** host:port of the Temporal frontend. */
  address: string;
  namespace: string;
  taskQueue: string;
  activities: object;
  workflows: WorkflowSource;
  /**
   * gzip on the worker's gRPC traffic (default true). Off for a service on this machine (the embedded one): on a
   * loopback connection compressing only burns CPU on both sides, roughly halving throughput.
   */
  compress?: boolean;
  /** Further Worker options (concurrency, shutdown grace, workflow cache). */
  options?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowsPath' | 'workflowBundle'>>;
}

export interface RunningSdkWorker {
  worker: Worker;
  /** Resolves when the worker stops (`stop`, a shutdown signal to the process) and rejects with a fatal error. */
  done: Promise<void>;
  /** Shuts the worker down, waits for its tasks to drain, and closes its connection; safe to call twice. */
  stop(): Promise<void>;
}

export async function runWorker(parameters: RunWorkerParameters): Promise<RunningSdkWorker> {
  const connection = await NativeConnection.connect({
    address: parameters.address,
    grpcCompression: { codec: parameters.compress === false ? 'none' : 'gzip' },
  });
  let worker: Worker;
  try {
    worker = await Worker.create({
      connection,
      namespace: parameters.namespace,
      taskQueue: parameters.taskQueue,
      activities: parameters.activities,
      ...parameters.workflows,
      ...parameters.options,
    });
  } catch (error) {
    await connection.close();
    throw error;
  }
  const done = worker.run();
  // Awaited by the caller through `done` or `stop`; this keeps an early failure from counting as unhandled meanwhile.
  done.catch(() => undefined);
  let stopping: Promise<void> | undefined;
  return {
    worker,
    done,
    stop: () => {
      stopping ??= (async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done.catch(() => undefined);
        await connection.close();
      })();
      return stopping;
    },
  };
}
