/**
 * Standalone worker: finds Temporal (temporal/connection.ts), builds the activities from their
 * dependencies, runs the workflows of workflows/index.ts — from the prebuilt bundle when
 * WORKFLOW_BUNDLE_PATH is set (production), else from source — and shuts down gracefully on SIGINT/SIGTERM.
 */
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../activities';
import { createPool } from '../db/pool';
import { findTemporalService } from '../temporal/connection';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';
import { createWorker, type WorkflowSource } from './create-worker';

const environmentSchema = z.object({
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(ISSUER_TASK_QUEUE),
  /** The PostgreSQL that activities write to. */
  DATABASE_URL: z.string().min(1),
});

async function main(): Promise<void> {
  const env = environmentSchema.parse(process.env);
  const service = await findTemporalService();
  const db = createPool(env.DATABASE_URL);
  // The in-memory service is in this process or on this machine: gzip would only burn CPU on both sides.
  const connection = await NativeConnection.connect({
    address: service.address,
    grpcCompression: { codec: service.kind === 'in-memory' ? 'none' : 'gzip' },
  });
  const workflows: WorkflowSource = env.WORKFLOW_BUNDLE_PATH
    ? { workflowBundle: { codePath: env.WORKFLOW_BUNDLE_PATH } }
    : { workflowsPath: require.resolve('../workflows') };
  const worker = await createWorker({
    connection,
    namespace: service.namespace,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    activities: createActivities({ db }),
    workflows,
  });
  console.log(`Worker polling ${env.TEMPORAL_TASK_QUEUE} on ${service.address} (${service.kind}, namespace ${service.namespace})`);
  // The SDK Runtime shuts running workers down on SIGINT/SIGTERM (its default shutdownSignals); run() resolves once
  // in-flight tasks have drained.
  await worker.run();
  await connection.close();
  await db.end();
  await service.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
