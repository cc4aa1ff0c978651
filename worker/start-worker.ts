/**
 * The one worker start-up, used by the standalone worker (worker/main.ts) and by `npm start`: connects to
 * the Temporal service, runs the product's workflows (from the prebuilt bundle or from source) with
 * activities built from their dependencies, starts the long-running maintenance workflows (a second start
 * finds the running one), and gives every outstanding attestation its lifecycle workflow.
 */
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../activities';
import { recoverAttestationWorkflows } from '../attestations/lifecycle-workflows';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import type { TemporalService } from '../temporal/connection';
import { MARKET_DATA_RETENTION_WORKFLOW_ID } from '../temporal/workflow-ids';
import type { marketDataRetentionWorkflow } from '../workflows';
import { createWorker, type WorkflowSource } from './create-worker';

export interface StartWorkerParameters {
  service: TemporalService;
  db: Database;
  logger: Logger;
  taskQueue: string;
  /** A prebuilt bundle (scripts/build-workflow-bundle.ts); unset bundles workflows/ from source. */
  workflowBundlePath?: string;
  /** The attestation workflows' settlement grace (ATTESTATION_SETTLEMENT_GRACE_MS). */
  settlementGraceMs: number;
}

export interface RunningWorker {
  /** A client on the same service, for starting, signalling and querying workflows. */
  client: Client;
  /** Resolves when the worker stops by itself (a signal, or a fatal error, which it rejects with). */
  done: Promise<void>;
  /** Drains in-flight tasks, then closes the client and the connection (not the service). */
  stop(): Promise<void>;
}

/** Routes the SDK's own logs (worker state, bundling, task failures) into the process logger, warnings and up. */
function installRuntimeLogger(logger: Logger): void {
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => logger[levels[entry.level]]({ temporal: entry.meta }, entry.message)),
    });
  } catch {
    // A runtime is already installed (a second worker in one process): keep it.
  }
}

export async function startWorker(parameters: StartWorkerParameters): Promise<RunningWorker> {
  const { service, db, logger, taskQueue } = parameters;
  installRuntimeLogger(logger);
  // The embedded service is in this process or on this machine: gzip would only burn CPU on both sides.
  const connection = await NativeConnection.connect({
    address: service.address,
    grpcCompression: { codec: service.kind === 'in-memory' ? 'none' : 'gzip' },
  });
  const workflows: WorkflowSource = parameters.workflowBundlePath
    ? { workflowBundle: { codePath: parameters.workflowBundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  logger.info({ taskQueue, bundle: parameters.workflowBundlePath ?? 'from source' }, 'starting the worker');
  const worker = await createWorker({
    connection,
    namespace: service.namespace,
    taskQueue,
    activities: createActivities({ db }),
    workflows,
    options: { shutdownGraceTime: '10 seconds' },
  });
  // The SDK Runtime shuts running workers down on SIGINT/SIGTERM (its default shutdownSignals); run() resolves
  // once in-flight tasks have drained.
  const done = worker.run();
  // Awaited by the caller through `done`; this keeps an early failure from counting as unhandled meanwhile.
  done.catch(() => undefined);
  const stopWorker = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done.catch(() => undefined);
  };

  let client: Client | undefined;
  try {
    client = await createTemporalClient({ address: service.address, namespace: service.namespace });
    await client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
      workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
      taskQueue,
      args: [{ every: '1 hour', prunesPerRun: 24 }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
    const attestationWorkflows = await recoverAttestationWorkflows({ db, client, taskQueue, settlementGraceMs: parameters.settlementGraceMs });
    logger.info({ attestationWorkflows }, 'outstanding attestations have their lifecycle workflows');
  } catch (error) {
    // Without recovery some attestations would never be settled: stop, so that a restart tries again.
    await stopWorker();
    if (client) await closeTemporalClient(client);
    await connection.close();
    throw error;
  }

  const started = client;
  return {
    client: started,
    done,
    async stop() {
      await stopWorker();
      await closeTemporalClient(started);
      await connection.close();
    },
  };
}
