/**
 * Test environment of the conformance suite: the shared worker environment (test/support/temporal.ts) over
 * the workload of harness/temporal-workload (workflows and activities that exercise the service).
 */
import { workloadBundle } from '../../harness/workflow-bundle';
import { startWorkerEnvironment, type WorkerEnvironment } from '../support/temporal';
import * as activities from '../../harness/temporal-workload/activities';

export { eventually, historyFromJsonText, historyToJsonText } from '../support/temporal';

/** The workload's workflows bundled once per source version; returns the bundle's code. */
export const testWorkflowBundle = workloadBundle;

export type TestEnvironment = WorkerEnvironment;

/**
 * Starts service (unless external), client and a worker over the test workflows on a fresh task queue; the
 * service is durable on `databaseUrl` when given.
 */
export function startTestEnvironment(options: { databaseUrl?: string } = {}): Promise<TestEnvironment> {
  return startWorkerEnvironment({ bundle: testWorkflowBundle, activities, taskQueuePrefix: 'test', databaseUrl: options.databaseUrl });
}
