/**
 * Child process of the attestation benchmark: the in-memory Temporal service and a worker over the product's
 * workflows with the activities on BENCH_DATABASE_URL, as production runs the worker apart from the API.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createPool } from '../db/pool';
import { startInMemoryTemporal } from '../temporal-server';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';
import { runWorker } from '../worker/run-worker';
import { productWorkflowThreads } from './workflows';

async function main(): Promise<void> {
  // SIGTERM ends the process at once: the benchmark is done with it (a graceful drain could outlive its database).
  Runtime.install({ logger: new DefaultLogger('ERROR'), shutdownSignals: [] });
  process.on('SIGTERM', () => process.exit(0));
  const db = createPool(process.env.BENCH_DATABASE_URL!, 10);
  const temporal = await startInMemoryTemporal();
  await runWorker({
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue: ISSUER_TASK_QUEUE,
    activities: createActivities({ db }),
    workflows: { workflowsPath: require.resolve('../workflows') },
    compress: false,
    options: { workflowThreadPoolSize: productWorkflowThreads() },
  });
  process.send!({ address: temporal.address, namespace: temporal.namespace });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
