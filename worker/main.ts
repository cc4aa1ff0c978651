/**
 * Standalone worker: finds Temporal (temporal/connection.ts), builds the activities from their
 * dependencies, runs the workflows of workflows/index.ts — from the prebuilt bundle when
 * WORKFLOW_BUNDLE_PATH is set (production), else from source — gives every outstanding attestation its
 * lifecycle workflow once polling, and shuts down gracefully on SIGINT/SIGTERM.
 */
import type { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../activities';
import { DEFAULT_SETTLEMENT_GRACE_MS, recoverAttestationWorkflows } from '../attestations/workflows';
import { createPool } from '../db/pool';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { findTemporalService } from '../temporal/connection';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';
import { createWorker, type WorkflowSource } from './create-worker';

const environmentSchema = z.object({
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(ISSUER_TASK_QUEUE),
  /** The PostgreSQL that activities write to. */
  DATABASE_URL: z.string().min(1),
  /** How long after expiry a late execution report (executed before expiry) is still accepted; as in config/index.ts. */
  ATTESTATION_SETTLEMENT_GRACE_MS: z.coerce.number().int().positive().default(DEFAULT_SETTLEMENT_GRACE_MS),
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
  const running = worker.run();
  // Awaited below; this handler only keeps an early failure from counting as unhandled meanwhile.
  running.catch(() => undefined);
  let client: Client | undefined;
  try {
    client = await createTemporalClient({ address: service.address, namespace: service.namespace });
    const recovered = await recoverAttestationWorkflows({
      db,
      client,
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      settlementGraceMs: env.ATTESTATION_SETTLEMENT_GRACE_MS,
    });
    console.log(`Attestation workflows started or found for ${recovered} outstanding attestations`);
  } catch (error) {
    // Without recovery some attestations would never be settled: stop, so that a restart tries again.
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    throw error;
  } finally {
    if (client) await closeTemporalClient(client);
  }
  await running;
  await connection.close();
  await db.end();
  await service.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
