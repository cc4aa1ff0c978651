/**
 * The durable mode's store: the runs of one namespace in PostgreSQL (schema `temporal`, see
 * temporal-server/migrations).
 *
 * Changes are written by group commit: every run changed since the last write is written by the next one, as a
 * single SQL statement (one round trip, one transaction) that upserts the run rows (the visibility rows, with
 * each run's record), appends the new history events, and adds new request ids and executions. The engine
 * changes runs synchronously, so a write always holds whole state transitions; the gRPC layer answers a call
 * only once `persisted()` resolves for it. A failed write (PostgreSQL down) rejects its waiters with
 * UNAVAILABLE — the SDK retries those calls — and leaves the runs to be written again: the in-memory state
 * stays the truth and the database catches up once it is back. Writes are idempotent (events and request ids
 * insert-if-absent, runs upserted), so a write whose acknowledgement was lost can be repeated.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Pool } from 'pg';
import { type LoadedRun, type RunStore } from '../engine';
import { ServiceError } from '../errors';
import { type WorkflowRun } from '../workflow-state';
import { applyMigrations } from '../../db/migrate';
import { guardConnections } from '../../db/pool';
import { TEMPORAL_MIGRATIONS } from './migrate';
import { decodeEvent, decodeRecord, encodeEvent, encodeMemo, encodeRecord, encodeSearchAttributes } from './run-codec';

/** How far each run is stored. */
interface Stored {
  seq: number;
  /** Whether its row is written (its execution's current run then too). */
  inserted: boolean;
  events: number;
  requestIds: number;
}

const flushStatement = `
WITH runs AS (
  INSERT INTO temporal.runs AS t (run_id, seq, workflow_id, workflow_type, task_queue, request_id, parent_workflow_id, parent_run_id,
    first_execution_run_id, continued_from_run_id, start_time, status, close_time, memo, search_attributes, history_length, state)
  SELECT r.run_id, r.seq, r.workflow_id, r.workflow_type, r.task_queue, r.request_id, r.parent_workflow_id, r.parent_run_id,
    r.first_execution_run_id, r.continued_from_run_id, to_timestamp(r.start_ms / 1000.0), r.status, to_timestamp(r.close_ms / 1000.0),
    decode(r.memo, 'base64'), decode(r.search_attributes, 'base64'), r.history_length, r.state
  FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, seq bigint, workflow_id text, workflow_type text, task_queue text, request_id text,
    parent_workflow_id text, parent_run_id text, first_execution_run_id text, continued_from_run_id text, start_ms bigint, status smallint,
    close_ms bigint, memo text, search_attributes text, history_length integer, state jsonb)
  ON CONFLICT (run_id) DO UPDATE SET status = excluded.status, close_time = excluded.close_time, memo = excluded.memo,
    search_attributes = excluded.search_attributes, history_length = excluded.history_length, state = excluded.state
  RETURNING 1
), events AS (
  INSERT INTO temporal.events (run_id, event_id, data)
  SELECT * FROM unnest($2::text[], $3::integer[], $4::bytea[])
  ON CONFLICT DO NOTHING
  RETURNING 1
), request_ids AS (
  INSERT INTO temporal.request_ids (run_id, request_id)
  SELECT * FROM unnest($5::text[], $6::text[])
  ON CONFLICT DO NOTHING
  RETURNING 1
), executions AS (
  INSERT INTO temporal.executions AS e (workflow_id, current_run_id, current_seq)
  SELECT * FROM unnest($7::text[], $8::text[], $9::bigint[])
  ON CONFLICT (workflow_id) DO UPDATE SET current_run_id = excluded.current_run_id, current_seq = excluded.current_seq
  WHERE e.current_seq < excluded.current_seq
  RETURNING 1
)
SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM events) AS events`;

/** How long a background write waits before trying again after a failure. */
const retryDelayMs = 500;

export class PostgresRunStore implements RunStore {
  private readonly stored = new Map<WorkflowRun, Stored>();
  private readonly loadedSeq = new Map<string, number>();
  private dirty = new Set<WorkflowRun>();
  private nextSeq = 1;
  private writing?: Promise<void>;
  private queued?: Promise<void>;
  private backgroundQueued = false;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;

  private constructor(private readonly pool: Pool) {}

  /** Connects, applies the schema's migrations, and returns the store (load its runs with `load()`). */
  static async open(databaseUrl: string): Promise<PostgresRunStore> {
    const pool = new Pool({ connectionString: databaseUrl, max: 3, connectionTimeoutMillis: 5_000, query_timeout: 30_000 });
    // A connection dropped by a PostgreSQL restart, idle or in use, must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    guardConnections(pool);
    try {
      await applyMigrations(pool, TEMPORAL_MIGRATIONS);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresRunStore(pool);
  }

  /** Every stored run, oldest first, with its history, request ids and record. */
  async load(): Promise<LoadedRun[]> {
    const [runs, events, requestIds] = await Promise.all([
      this.pool.query<{ run_id: string; seq: string; request_id: string; history_length: number; state: unknown }>(
        'SELECT run_id, seq, request_id, history_length, state FROM temporal.runs ORDER BY seq',
      ),
      this.pool.query<[string, number, Buffer]>({ text: 'SELECT run_id, event_id, data FROM temporal.events ORDER BY run_id, event_id', rowMode: 'array' }),
      this.pool.query<[string, string]>({ text: 'SELECT run_id, request_id FROM temporal.request_ids', rowMode: 'array' }),
    ]);
    const loaded = new Map<string, LoadedRun>();
    const result: LoadedRun[] = [];
    for (const row of runs.rows) {
      const run: LoadedRun = { runId: row.run_id, requestId: row.request_id, requestIds: [], history: [], record: decodeRecord(row.state as never) };
      loaded.set(row.run_id, run);
      result.push(run);
      this.loadedSeq.set(row.run_id, Number(row.seq));
      this.nextSeq = Math.max(this.nextSeq, Number(row.seq) + 1);
    }
    for (const [runId, , data] of events.rows) loaded.get(runId)?.history.push(decodeEvent(data));
    for (const [runId, requestId] of requestIds.rows) loaded.get(runId)?.requestIds.push(requestId);
    return result;
  }

  adopt(run: WorkflowRun): void {
    const seq = this.loadedSeq.get(run.runId) ?? this.nextSeq++;
    this.stored.set(run, { seq, inserted: true, events: run.history.length, requestIds: run.requestIds.length });
    this.dirty.delete(run);
  }

  runChanged(run: WorkflowRun): void {
    if (this.closed) return;
    this.dirty.add(run);
    if (this.backgroundQueued) return;
    // Changes made outside a call (timers, timeouts) are written soon without anyone waiting for them.
    this.backgroundQueued = true;
    setImmediate(() => {
      this.backgroundQueued = false;
      this.persisted().catch(() => this.retrySoon());
    });
  }

  /** Resolves once every change made before the call is stored; rejects with UNAVAILABLE if a write fails. */
  persisted(): Promise<void> {
    if (this.dirty.size === 0) return this.writing ?? Promise.resolve();
    if (!this.queued) {
      const previous = this.writing ?? Promise.resolve();
      const next = previous
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          const write = this.write();
          this.writing = write;
          void write.then(
            () => this.settle(write),
            () => this.settle(write),
          );
          return write;
        });
      this.queued = next;
    }
    return this.queued;
  }

  private settle(write: Promise<void>): void {
    if (this.writing === write) this.writing = undefined;
  }

  private retrySoon(): void {
    if (this.retryTimer || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.dirty.size > 0) this.persisted().catch(() => this.retrySoon());
    }, retryDelayMs);
    this.retryTimer.unref();
  }

  /** Writes every dirty run in one statement. */
  private async write(): Promise<void> {
    const runs = [...this.dirty].filter((run) => run.history.length > 0);
    this.dirty = new Set([...this.dirty].filter((run) => run.history.length === 0));
    if (runs.length === 0) return;
    const rows: object[] = [];
    const eventRuns: string[] = [];
    const eventIds: number[] = [];
    const eventData: Buffer[] = [];
    const requestRuns: string[] = [];
    const requestIds: string[] = [];
    const executions = new Map<string, { runId: string; seq: number }>();
    const progress: [WorkflowRun, Stored][] = [];
    for (const run of runs) {
      let stored = this.stored.get(run);
      if (!stored) {
        stored = { seq: this.nextSeq++, inserted: false, events: 0, requestIds: 0 };
        this.stored.set(run, stored);
      }
      if (!stored.inserted) {
        const current = executions.get(run.workflowId);
        if (!current || current.seq < stored.seq) executions.set(run.workflowId, { runId: run.runId, seq: stored.seq });
      }
      const init = run.init;
      rows.push({
        run_id: run.runId,
        seq: stored.seq,
        workflow_id: run.workflowId,
        workflow_type: init.workflowType,
        task_queue: init.taskQueue,
        request_id: init.requestId,
        parent_workflow_id: init.parent?.run.workflowId ?? null,
        parent_run_id: init.parent?.run.runId ?? null,
        first_execution_run_id: init.firstExecutionRunId,
        continued_from_run_id: init.continuedExecutionRunId ?? null,
        start_ms: run.startTime,
        status: run.status,
        close_ms: run.closeTime ?? null,
        memo: encodeMemo(run.memo),
        search_attributes: encodeSearchAttributes(run.searchAttributes),
        history_length: run.history.length,
        state: encodeRecord(run.record()),
      });
      for (let index = stored.events; index < run.history.length; index += 1) {
        eventRuns.push(run.runId);
        eventIds.push(index + 1);
        eventData.push(encodeEvent(run.history[index]!));
      }
      for (let index = stored.requestIds; index < run.requestIds.length; index += 1) {
        requestRuns.push(run.runId);
        requestIds.push(run.requestIds[index]!);
      }
      progress.push([run, { seq: stored.seq, inserted: true, events: run.history.length, requestIds: run.requestIds.length }]);
    }
    const executionIds = [...executions.keys()];
    try {
      await this.pool.query({
        name: 'temporal-server-write',
        text: flushStatement,
        values: [
          JSON.stringify(rows),
          eventRuns,
          eventIds,
          eventData,
          requestRuns,
          requestIds,
          executionIds,
          executionIds.map((id) => executions.get(id)!.runId),
          executionIds.map((id) => executions.get(id)!.seq),
        ],
      });
    } catch (error) {
      for (const run of runs) this.dirty.add(run);
      throw new ServiceError(GrpcStatus.UNAVAILABLE, `Temporal service: storing the change failed (${error instanceof Error ? error.message : String(error)})`);
    }
    for (const [run, done] of progress) this.stored.set(run, done);
  }

  /** Writes what is left (best effort) and disconnects. */
  async close(): Promise<void> {
    try {
      await this.persisted();
    } catch {
      // Unstored changes were never acknowledged; nothing more to do.
    }
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.pool.end();
  }
}
