/** Operators inspecting workflows through the admin API: list with filters, describe, history, errors. */
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { queryWorkflowState } from '../../inspection/workflows';
import { attestationWorkflowId, MARKET_DATA_RETENTION_WORKFLOW_ID } from '../../temporal/workflow-ids';
import type { marketDataRetentionWorkflow } from '../../workflows';
import { createTestApi, type TestApi } from '../support/api';
import { startTestStack, type TestStack } from '../support/stack';
import { eventually, type ProductTemporal } from '../support/temporal';

let stack: TestStack;
let temporal: ProductTemporal;
let api: TestApi;

beforeAll(async () => {
  stack = await startTestStack();
  ({ temporal, api } = stack);
  await temporal.client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
    workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
    taskQueue: temporal.taskQueue,
    args: [{ every: '1 hour', prunesPerRun: 24 }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
});
afterAll(() => stack?.close());

const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.admin);

test('lists workflows, filtered by type, status and id prefix', async () => {
  const all = await get('/v1/workflows');
  expect(all.status).toBe(200);
  expect(all.body.workflows).toEqual([
    expect.objectContaining({ workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID, type: 'marketDataRetentionWorkflow', status: 'RUNNING' }),
  ]);
  expect((await get('/v1/workflows?type=marketDataRetentionWorkflow&status=RUNNING&idPrefix=market-')).body.workflows).toHaveLength(1);
  expect((await get('/v1/workflows?status=COMPLETED')).body.workflows).toHaveLength(0);
  expect((await get('/v1/workflows?idPrefix=attestation-')).body.workflows).toHaveLength(0);
  expect((await get(`/v1/workflows?startedAfter=${Date.now() + 60_000}`)).body.workflows).toHaveLength(0);
});

test('shows one workflow with its pending timer once it sleeps', async () => {
  await eventually(async () => {
    const response = await get(`/v1/workflows/${MARKET_DATA_RETENTION_WORKFLOW_ID}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'RUNNING', pendingActivities: [] });
    expect(response.body.pendingTimers).toEqual([expect.objectContaining({ timerId: expect.any(String), firesAt: expect.any(String) })]);
  });
});

test('renders the history as a timeline with decoded payloads', async () => {
  const response = await get(`/v1/workflows/${MARKET_DATA_RETENTION_WORKFLOW_ID}/history`);
  expect(response.status).toBe(200);
  const [started] = response.body.events;
  expect(started).toMatchObject({ eventId: 1, type: 'WorkflowExecutionStarted', time: expect.any(String) });
  expect(started.details.input).toEqual([{ every: '1 hour', prunesPerRun: 24 }]);
  const types = response.body.events.map((event: { type: string }) => event.type);
  expect(types).toEqual(expect.arrayContaining(['ActivityTaskScheduled', 'ActivityTaskCompleted', 'TimerStarted']));
});

test.each([
  ['/v1/workflows/no-such-workflow', 404, 'WORKFLOW_NOT_FOUND'],
  ['/v1/workflows/no-such-workflow/history', 404, 'WORKFLOW_NOT_FOUND'],
  ['/v1/workflows?status=SLEEPING', 400, 'INVALID_PARAMETER'],
  ['/v1/workflows?limit=0', 400, 'INVALID_PARAMETER'],
  ['/v1/workflows?startedAfter=yesterday', 400, 'INVALID_PARAMETER'],
])('%s → %i %s', async (path, status, code) => {
  const response = await get(path);
  expect(response.status).toBe(status);
  expect(response.body.code).toBe(code);
});

test('without a workflow service the routes answer 503', async () => {
  const detached = await createTestApi({ database: stack.database });
  const response = await detached.http.get('/v1/workflows').set('x-api-key', detached.keys.admin);
  expect(response.status).toBe(503);
  expect(response.body.code).toBe('TEMPORAL_UNAVAILABLE');
});

describe('npm run ops -- show: the workflow\'s own state query', () => {
  test('an attestation workflow answers its attestationState query; one without a state query answers undefined', async () => {
    const attestationId = '123456789012345678901234567890';
    const expiresAt = Date.now() + 3_600_000;
    const handle = await temporal.client.workflow.start('attestationWorkflow', {
      workflowId: attestationWorkflowId(attestationId),
      taskQueue: temporal.taskQueue,
      args: [{ attestationId, expiresAt, settlementGraceMs: 60_000 }],
    });
    try {
      await eventually(async () => {
        expect(await queryWorkflowState(temporal.client, handle.workflowId)).toEqual({
          query: 'attestationState',
          state: { attestationId, state: 'outstanding', expiresAt, txHash: null },
        });
      });
      expect(await queryWorkflowState(temporal.client, MARKET_DATA_RETENTION_WORKFLOW_ID)).toBeUndefined();
    } finally {
      await handle.terminate('test over');
    }
  });
});
