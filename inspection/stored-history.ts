/**
 * Histories read straight from the embedded Temporal service's PostgreSQL store (schema `temporal`, see
 * temporal-server/store): what `npm run ops` shows when no service is running. Read-only; the service need not run.
 */
import type { Queryable } from '../db/pool';
import { decodeEvent } from '../temporal-server/store/run-codec';
import { WorkflowExecutionStatus } from '../temporal-server/proto';
import { timelineEntry, type TimelineEntry, type WorkflowSummary } from './workflows';

const statusNames = WorkflowExecutionStatus as unknown as Record<number, string>;

interface RunRow {
  run_id: string;
  workflow_id: string;
  workflow_type: string;
  task_queue: string;
  status: number;
  start_time: Date;
  close_time: Date | null;
  history_length: number;
}

/** Whether the database holds the embedded service's store. */
export async function hasTemporalStore(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(`SELECT to_regclass('temporal.runs') IS NOT NULL AS found`);
  return rows[0]?.found ?? false;
}

/** The current (latest) run of a workflow as stored; undefined when the store has none. */
export async function storedWorkflow(db: Queryable, workflowId: string): Promise<WorkflowSummary | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT r.run_id, r.workflow_id, r.workflow_type, r.task_queue, r.status, r.start_time, r.close_time, r.history_length
       FROM temporal.executions e JOIN temporal.runs r ON r.run_id = e.current_run_id WHERE e.workflow_id = $1`,
    [workflowId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    type: row.workflow_type,
    status: (statusNames[row.status] ?? 'UNKNOWN').replace('WORKFLOW_EXECUTION_STATUS_', '').replace('CANCELED', 'CANCELLED'),
    taskQueue: row.task_queue,
    startTime: row.start_time.toISOString(),
    closeTime: row.close_time?.toISOString() ?? null,
    historyLength: row.history_length,
  };
}

/** The stored history of a run, oldest first, as timeline entries. */
export async function storedTimeline(db: Queryable, runId: string): Promise<TimelineEntry[]> {
  const { rows } = await db.query<{ data: Buffer }>(`SELECT data FROM temporal.events WHERE run_id = $1 ORDER BY event_id`, [runId]);
  return rows.map((row) => timelineEntry(decodeEvent(row.data)));
}
