/**
 * Standalone worker (`npm run worker`): the product's workflows and activities against DATABASE_URL and the
 * Temporal service configuration names (temporal/connection.ts), started by the same `startWorker` as
 * `npm start`; shuts down gracefully on SIGINT/SIGTERM.
 */
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { createPool } from '../db/pool';
import { findTemporalService } from '../temporal/connection';
import { startWorker } from './start-worker';

async function main(): Promise<void> {
  const config = loadConfig([
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'TEMPORAL_TASK_QUEUE',
    'WORKFLOW_BUNDLE_PATH',
    'ATTESTATION_SETTLEMENT_GRACE_MS',
    'LOG_LEVEL',
    'LOG_FORMAT',
  ]);
  if (!config.DATABASE_URL) throw new Error('invalid configuration: DATABASE_URL: the standalone worker needs the database its activities write to');
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const service = await findTemporalService(config);
  const db = createPool(config.DATABASE_URL);
  try {
    const worker = await startWorker({
      service,
      db,
      logger,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
      settlementGraceMs: config.ATTESTATION_SETTLEMENT_GRACE_MS,
    });
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: service.address, kind: service.kind, namespace: service.namespace }, 'worker polling');
    await worker.done;
    await worker.stop();
  } finally {
    await db.end();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
