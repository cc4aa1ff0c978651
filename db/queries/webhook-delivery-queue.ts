/**
 * The worker's side of webhooks in SQL: the wake-ups that name endpoints with new deliveries, claiming an endpoint's
 * due deliveries (the oldest pending of each resource only, leased, an attempt opened), recording each attempt's
 * outcome and the endpoint's failure record, and pruning finished history. Re-exported by ./webhooks.
 */
import { webhookEventId } from '../../domain/webhook-events';
import type { Queryable } from '../pool';
import type { DueWebhookDelivery, EventColumns } from './webhooks';

/** Epoch milliseconds of a timestamptz expression, as a number (null stays null). */
export const EPOCH_MS = (expression: string) => `floor(extract(epoch FROM ${expression}) * 1000)::float8`;

type ClaimedRow = EventColumns & { deliveryId: string; attempt: number; data: unknown };

/** Takes up to `limit` endpoints with new work (FOR UPDATE SKIP LOCKED) and deletes their wake-ups: call it in a transaction. */
export async function takeWebhookWakeups(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ endpointId: string }>(
    `WITH locked AS (
       SELECT endpoint_id, transaction_id FROM webhook_endpoint_wakeups ORDER BY stored_at LIMIT $1::int * 8 FOR UPDATE SKIP LOCKED
     ), chosen AS (
       SELECT DISTINCT endpoint_id FROM locked LIMIT $1
     ), taken AS (
       DELETE FROM webhook_endpoint_wakeups w USING locked l JOIN chosen c ON c.endpoint_id = l.endpoint_id
        WHERE w.endpoint_id = l.endpoint_id AND w.transaction_id = l.transaction_id
       RETURNING w.endpoint_id
     )
     SELECT DISTINCT endpoint_id AS "endpointId" FROM taken ORDER BY 1`,
    [limit],
  );
  return rows.map((row) => row.endpointId);
}

/** Enabled endpoints with pending deliveries: a worker starting wakes them all, in case a wake-up was lost. */
export async function endpointsWithPendingDeliveries(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ endpointId: string }>(
    `SELECT e.endpoint_id AS "endpointId" FROM webhook_endpoints e
      WHERE e.state = 'enabled' AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'pending')
      ORDER BY 1`,
  );
  return rows.map((row) => row.endpointId);
}


/**
 * Claims the endpoint's due deliveries, at most one per resource and only the oldest pending of each (so a
 * resource's events arrive in order), leasing each for `leaseMs` and opening its attempt. Attempts whose lease ran
 * out (a worker gone mid-send) are closed as `interrupted` first.
 */
export async function claimDueWebhookDeliveries(db: Queryable, endpointId: string, options: { limit: number; leaseMs: number }): Promise<DueWebhookDelivery[]> {
  const { rows } = await db.query<ClaimedRow>(
    `WITH clock AS (SELECT clock_timestamp() AS now),
     interrupted AS (
       UPDATE webhook_attempts a SET finished_at = clock.now, outcome = 'interrupted', error = 'the lease ran out before the attempt was recorded'
         FROM webhook_deliveries d, clock
        WHERE d.endpoint_id = $1 AND d.leased_until < clock.now AND a.delivery_id = d.delivery_id AND a.finished_at IS NULL
     ), due AS (
       SELECT d.delivery_id FROM webhook_deliveries d, clock
        WHERE d.endpoint_id = $1 AND d.state = 'pending' AND d.next_attempt_at <= clock.now AND (d.leased_until IS NULL OR d.leased_until < clock.now)
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries earlier
                           WHERE earlier.endpoint_id = d.endpoint_id AND earlier.resource_key = d.resource_key AND earlier.state = 'pending'
                             AND earlier.delivery_id < d.delivery_id)
        ORDER BY d.delivery_id LIMIT $2
          FOR UPDATE OF d SKIP LOCKED
     ), leased AS (
       UPDATE webhook_deliveries d SET attempts = d.attempts + 1, leased_until = clock.now + make_interval(secs => $3::float8 / 1000)
         FROM due, clock
        WHERE d.delivery_id = due.delivery_id
       RETURNING d.delivery_id, d.attempts, d.event_seq
     ), opened AS (
       INSERT INTO webhook_attempts (delivery_id, attempt, started_at) SELECT delivery_id, attempts, clock.now FROM leased, clock
     )
     SELECT l.delivery_id::text AS "deliveryId", l.attempts AS attempt, e.seq::text AS sequence, e.type, ${EPOCH_MS('e.occurred_at')} AS timestamp,
            e.resource_kind AS "resourceKind", e.resource_id AS "resourceId", e.payload AS data
       FROM leased l JOIN webhook_events e ON e.seq = l.event_seq
      ORDER BY l.delivery_id`,
    [endpointId, options.limit, options.leaseMs],
  );
  return rows.map((row) => ({
    deliveryId: row.deliveryId,
    attempt: row.attempt,
    envelope: {
      id: webhookEventId(row.sequence),
      type: row.type,
      timestamp: row.timestamp,
      resource: { kind: row.resourceKind, id: row.resourceId },
      sequence: row.sequence,
      data: row.data,
    },
  }));
}

/**
 * Closes an attempt: `delivered`; or a failure with the next attempt's time (null: the schedule is spent, the
 * delivery is `failed`); `disable` also disables the endpoint. Updates the endpoint's failure record.
 */
export async function recordWebhookAttempt(
  db: Queryable,
  attempt: {
    deliveryId: string;
    attempt: number;
    outcome: 'delivered' | 'failed' | 'refused';
    status: number | null;
    error: string | null;
    responseExcerpt: string | null;
    address: string | null;
    durationMs: number;
    nextAttemptAt: number | null;
    disable?: { by: 'failures' | 'gone'; reason: string };
  },
): Promise<void> {
  const { deliveryId, disable } = attempt;
  const failure = attempt.outcome === 'delivered' ? null : attempt.error ?? (attempt.status === null ? attempt.outcome : `HTTP ${attempt.status}`);
  await db.query(
    `WITH clock AS (SELECT clock_timestamp() AS now),
     closed AS (
       UPDATE webhook_attempts SET finished_at = clock.now, outcome = $3, status = $4, error = $5, response_excerpt = $6, address = $7, duration_ms = $8
         FROM clock
        WHERE delivery_id = $1 AND attempt = $2 AND (finished_at IS NULL OR outcome = 'interrupted')
     ), current AS (
       SELECT endpoint_id FROM webhook_deliveries WHERE delivery_id = $1 AND attempts = $2 AND state = 'pending'
     ), settled AS (
       UPDATE webhook_deliveries d
          SET state = CASE WHEN $3 = 'delivered' THEN 'delivered' WHEN $10::text IS NOT NULL THEN 'cancelled' WHEN $9::float8 IS NULL THEN 'failed' ELSE 'pending' END,
              next_attempt_at = CASE WHEN $9::float8 IS NULL THEN d.next_attempt_at ELSE to_timestamp($9::float8 / 1000) END,
              leased_until = NULL, delivered_at = CASE WHEN $3 = 'delivered' THEN clock.now END, last_status = $4, last_error = $13
         FROM clock
        WHERE d.delivery_id = $1 AND d.attempts = $2 AND d.state = 'pending'
     ), endpoint AS (
       UPDATE webhook_endpoints w
          SET failing_since = CASE WHEN $3 = 'delivered' THEN NULL ELSE coalesce(w.failing_since, clock.now) END,
              last_success_at = CASE WHEN $3 = 'delivered' THEN clock.now ELSE w.last_success_at END,
              last_failure = coalesce($13, w.last_failure),
              state = CASE WHEN $10::text IS NULL THEN w.state ELSE 'disabled' END,
              disabled_by = coalesce($10, w.disabled_by), disabled_reason = coalesce($11, w.disabled_reason),
              disabled_at = CASE WHEN $10::text IS NULL THEN w.disabled_at ELSE clock.now END,
              updated_at = clock.now
         FROM current, clock
        WHERE w.endpoint_id = current.endpoint_id AND (w.state = 'enabled' OR $10::text IS NULL)
       RETURNING w.endpoint_id, w.state
     )
     UPDATE webhook_deliveries d SET state = 'cancelled'
       FROM endpoint
      WHERE $12 AND endpoint.state = 'disabled' AND d.endpoint_id = endpoint.endpoint_id AND d.state = 'pending' AND d.delivery_id <> $1`,
    [
      deliveryId,
      attempt.attempt,
      attempt.outcome,
      attempt.status,
      attempt.error,
      attempt.responseExcerpt,
      attempt.address,
      Math.round(attempt.durationMs),
      attempt.nextAttemptAt,
      disable?.by ?? null,
      disable?.reason ?? null,
      disable !== undefined,
      failure,
    ],
  );
}

/** Epoch ms of the endpoint's earliest pending next attempt, or null. */
export async function nextWebhookDueAt(db: Queryable, endpointId: string): Promise<number | null> {
  const { rows } = await db.query<{ dueAt: number | null }>(
    `SELECT ${EPOCH_MS('min(greatest(d.next_attempt_at, coalesce(d.leased_until, d.next_attempt_at)))')} AS "dueAt"
       FROM webhook_deliveries d
      WHERE d.endpoint_id = $1 AND d.state = 'pending'
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries earlier
                         WHERE earlier.endpoint_id = d.endpoint_id AND earlier.resource_key = d.resource_key AND earlier.state = 'pending'
                           AND earlier.delivery_id < d.delivery_id)`,
    [endpointId],
  );
  return rows[0]?.dueAt ?? null;
}

/** Deletes finished deliveries (and events no delivery needs any more) older than `olderThan` (epoch ms). */
export async function pruneWebhookHistory(db: Queryable, olderThan: number): Promise<{ deliveries: number; events: number }> {
  const before = [olderThan];
  const deliveries = await db.query(`DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < to_timestamp($1::float8 / 1000)`, before);
  const events = await db.query(
    `DELETE FROM webhook_events e
      WHERE e.occurred_at < to_timestamp($1::float8 / 1000) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq)`,
    before,
  );
  return { deliveries: deliveries.rowCount ?? 0, events: events.rowCount ?? 0 };
}
