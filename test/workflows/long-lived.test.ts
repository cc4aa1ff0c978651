/**
 * The rule of the long-lived workflows (workflows/long-lived.ts) on the real worker against the in-memory service, with
 * virtual time: the candle-retention workflow — the simplest of them — run with a number of prunes per run no machine
 * reaches, so that only the rule ends its runs.
 */
import { createActivities } from '../../activities';
import { LONG_LIVED_RUN_LIMITS } from '../../temporal/long-lived';
import type { marketDataRetentionWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

let database: TestDb;
let temporal: ProductTemporal;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  temporal = await startProductTemporal(createActivities({ db: database.db }));
});
afterAll(async () => {
  await temporal?.teardown();
  await database?.drop();
});

async function startRetention(workflowId: string, every: string) {
  return temporal.client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
    workflowId,
    taskQueue: temporal.taskQueue,
    args: [{ every, prunesPerRun: 1_000_000 }],
  });
}

/** Waits, letting virtual time run, until the first run of `workflowId` has continued as new; answers that run's description. */
async function firstRunContinued(workflowId: string, runId: string, stepMs: number) {
  return eventually(async () => {
    await temporal.timeSkipping!.skip(stepMs);
    const description = await temporal.client.workflow.getHandle(workflowId, runId).describe();
    expect(description.status.name).toBe('CONTINUED_AS_NEW');
    return description;
  }, 150_000);
}

test('a run continues as new once its history reaches the event limit, with the long-lived workflow task timeout', async () => {
  if (!temporal.timeSkipping) return; // virtual time only on the in-memory service
  const workflowId = 'long-lived-events';
  const first = await startRetention(workflowId, '1 minute');
  // A prune a minute is about a dozen events: the limit comes within two hours, long before the age limit.
  const continued = await firstRunContinued(workflowId, first.firstExecutionRunId, 30 * 60_000);
  expect(continued.historyLength).toBeGreaterThanOrEqual(LONG_LIVED_RUN_LIMITS.events);
  expect(continued.historyLength).toBeLessThan(LONG_LIVED_RUN_LIMITS.events + 20);
  const next = await temporal.client.workflow.getHandle(workflowId).describe();
  expect(next.status.name).toBe('RUNNING');
  expect(Number(next.raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds)).toBe(30);
  await temporal.client.workflow.getHandle(workflowId).terminate('test done');
}, 180_000);

test('a run continues as new once it reaches the age limit, however short its history', async () => {
  if (!temporal.timeSkipping) return;
  const workflowId = 'long-lived-age';
  const first = await startRetention(workflowId, '4 hours');
  const continued = await firstRunContinued(workflowId, first.firstExecutionRunId, 4 * 3_600_000);
  expect(continued.historyLength).toBeLessThan(100);
  expect(continued.closeTime!.getTime() - continued.startTime.getTime()).toBeGreaterThanOrEqual(LONG_LIVED_RUN_LIMITS.ageMs);
  await recordProductHistory('market-data-retention-long-lived', temporal.client.workflow.getHandle(workflowId, first.firstExecutionRunId));
  await temporal.client.workflow.getHandle(workflowId).terminate('test done');
}, 180_000);
