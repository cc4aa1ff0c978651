/** The candle-retention workflow on the real worker against the in-memory service, with virtual time. */
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { createActivities } from '../../activities';
import { MARKET_DATA_RETENTION_WORKFLOW_ID } from '../../temporal/workflow-ids';
import type { marketDataRetentionWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

let database: TestDb;
let temporal: ProductTemporal;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  temporal = await startProductTemporal(createActivities({ db: database.db, webhooks: { retentionDays: 30 } }));
});
afterAll(async () => {
  await temporal?.teardown();
  await database?.drop();
});

const ELEVEN_DAYS = 11 * 86_400_000;

async function insertStaleMinuteCandle(bucketStart: number): Promise<void> {
  await database.db.query(
    `INSERT INTO candles (symbol, market, interval, bucket_start, open, high, low, close, volume)
     VALUES ('AAPLon', 'primary', '1min', $1, 1, 1, 1, 1, 0)`,
    [bucketStart],
  );
}

async function candleExists(bucketStart: number): Promise<boolean> {
  const { rowCount } = await database.db.query(`SELECT 1 FROM candles WHERE interval = '1min' AND bucket_start = $1`, [bucketStart]);
  return rowCount === 1;
}

test('prunes candles past retention, keeps the rest, and continues as new after its prunes', async () => {
  const stale = Date.now() - ELEVEN_DAYS;
  await insertStaleMinuteCandle(stale);
  const { rows } = await database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candles WHERE interval = '1day'`);
  const start = () =>
    temporal.client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
      workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
      taskQueue: temporal.taskQueue,
      args: [{ every: '1 hour', prunesPerRun: 2 }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
  const first = await start();
  await eventually(async () => expect(await candleExists(stale)).toBe(false));
  // Daily candles are kept for ever.
  expect((await database.db.query(`SELECT count(*)::int AS n FROM candles WHERE interval = '1day'`)).rows[0]?.n).toBe(rows[0]?.n);

  // A second start (a restarted stack) finds the running workflow instead of starting another.
  const again = await start();
  expect(again.firstExecutionRunId).toBe(first.firstExecutionRunId);

  if (!temporal.timeSkipping) return; // virtual time only on the in-memory service
  const another = Date.now() - ELEVEN_DAYS - 60_000;
  await insertStaleMinuteCandle(another);
  await temporal.timeSkipping.skip(2 * 3_600_000 + 1_000);
  await eventually(async () => expect(await candleExists(another)).toBe(false));
  await eventually(async () => {
    const description = await temporal.client.workflow.getHandle(MARKET_DATA_RETENTION_WORKFLOW_ID, first.firstExecutionRunId).describe();
    expect(description.status.name).toBe('CONTINUED_AS_NEW');
  });
  await recordProductHistory('market-data-retention-webhooks', temporal.client.workflow.getHandle(MARKET_DATA_RETENTION_WORKFLOW_ID, first.firstExecutionRunId));
  const current = await temporal.client.workflow.getHandle(MARKET_DATA_RETENTION_WORKFLOW_ID).describe();
  expect(current.status.name).toBe('RUNNING');
  expect(current.runId).not.toBe(first.firstExecutionRunId);
});
