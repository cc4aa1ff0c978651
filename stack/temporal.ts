/**
 * Temporal for the running stack: finds the service (TEMPORAL_ADDRESS, a `temporal` CLI dev server,
 * or the in-memory service), runs the worker with the product's activities and workflows, starts
 * the long-running maintenance workflows (a second start finds the running one), and gives every
 * outstanding attestation its lifecycle workflow.
 */
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Logger } from '../config/logger';
import { DEFAULT_SETTLEMENT_GRACE_MS, recoverAttestationWorkflows } from '../attestations/workflows';
import type { Database } from '../db/pool';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { findTemporalService, type TemporalService } from '../temporal/connection';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';
import { MARKET_DATA_RETENTION_WORKFLOW_ID } from '../temporal/workflow-ids';
import { createWorker, type WorkflowSource } from '../worker/create-worker';
import type { marketDataRetentionWorkflow } from '../workflows';

export interface RunningTemporal {
  service: TemporalService;
  client: Client;
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
    // A runtime is already installed (a second stack in one process): keep it.
  }
}

export interface StartTemporalOptions {
  db: Database;
  logger: Logger;
  workflowBundlePath?: string;
  /** The attestation workflows' settlement grace (config ATTESTATION_SETTLEMENT_GRACE_MS); default DEFAULT_SETTLEMENT_GRACE_MS. */
  settlementGraceMs?: number;
}

export async function startTemporal(options: StartTemporalOptions): Promise<RunningTemporal> {
  const { db, logger } = options;
  installRuntimeLogger(logger);
  const service = await findTemporalService();
  logger.info({ address: service.address, namespace: service.namespace, kind: service.kind }, 'Temporal service found');
  const connection = await NativeConnection.connect({
    address: service.address,
    grpcCompression: { codec: service.kind === 'in-memory' ? 'none' : 'gzip' },
  });
  const workflows: WorkflowSource = options.workflowBundlePath
    ? { workflowBundle: { codePath: options.workflowBundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  logger.info('bundling workflows and starting the worker');
  const worker = await createWorker({
    connection,
    namespace: service.namespace,
    taskQueue: ISSUER_TASK_QUEUE,
    activities: createActivities({ db }),
    workflows,
    options: { shutdownGraceTime: '10 seconds' },
  });
  const running = worker.run();
  running.catch((error: unknown) => logger.error({ err: error }, 'worker stopped with an error'));
  const client = await createTemporalClient({ address: service.address, namespace: service.namespace });

  await client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
    workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
    taskQueue: ISSUER_TASK_QUEUE,
    args: [{ every: '1 hour', prunesPerRun: 24 }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
  const attestationWorkflows = await recoverAttestationWorkflows({
    db,
    client,
    taskQueue: ISSUER_TASK_QUEUE,
    settlementGraceMs: options.settlementGraceMs ?? DEFAULT_SETTLEMENT_GRACE_MS,
  });
  logger.info({ attestationWorkflows }, 'outstanding attestations have their lifecycle workflows');

  return {
    service,
    client,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running.catch(() => undefined);
      await closeTemporalClient(client);
      await connection.close();
      await service.stop();
    },
  };
}
