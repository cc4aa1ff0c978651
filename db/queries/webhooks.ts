/**
 * Webhooks in SQL: the endpoints an account registers (their signing secrets only sealed), the deliveries the
 * triggers of migration 020 queue for them, the attempts of each delivery, and the wake-ups that tell the worker an
 * endpoint has new work.
 */
import { webhookEventId, type WebhookAudience, type WebhookEnvelope, type WebhookEventType, type WebhookResourceKind } from '../../domain/webhook-events';
import type { Queryable } from '../pool';
import { EPOCH_MS } from './webhook-delivery-queue';

/** Whose endpoints a caller may see: its account's, and with an admin key the operators' too. */
export interface WebhookOwner {
  accountId: string;
  operators: boolean;
}

/** A signing secret sealed by a `SecretBox` (webhooks/secret-box.ts) under the key `keyId`. */
export interface SealedSecret {
  keyId: string;
  sealed: Buffer;
}

export type WebhookEndpointState = 'enabled' | 'disabled';
export type WebhookDisabledBy = 'owner' | 'failures' | 'gone';

export interface WebhookEndpointRecord {
  /** `wh_` and 16 hex digits. */
  endpointId: string;
  accountId: string;
  audience: WebhookAudience;
  url: string;
  eventTypes: WebhookEventType[];
  description: string | null;
  state: WebhookEndpointState;
  disabledBy: WebhookDisabledBy | null;
  disabledReason: string | null;
  /** Epoch milliseconds, as every time below. */
  disabledAt: number | null;
  failingSince: number | null;
  lastSuccessAt: number | null;
  lastFailure: string | null;
  createdAt: number;
  secret: SealedSecret;
  /** The secret before the last rotation, still signing (beside the new one) until it expires. */
  previousSecret: (SealedSecret & { expiresAt: number }) | null;
  /** The `Idempotency-Key` it was created with, and the hash of that request. */
  idempotencyKey: string | null;
  requestHash: string | null;
}

export interface NewWebhookEndpoint {
  endpointId: string;
  accountId: string;
  audience: WebhookAudience;
  url: string;
  eventTypes: WebhookEventType[];
  description: string | null;
  secret: SealedSecret;
  idempotencyKey?: string;
  requestHash?: string;
}

const ENDPOINT_COLUMNS = `endpoint_id AS "endpointId", account_id AS "accountId", audience, url, event_types AS "eventTypes", description, state,
  disabled_by AS "disabledBy", disabled_reason AS "disabledReason", ${EPOCH_MS('disabled_at')} AS "disabledAt", ${EPOCH_MS('failing_since')} AS "failingSince",
  ${EPOCH_MS('last_success_at')} AS "lastSuccessAt", last_failure AS "lastFailure", ${EPOCH_MS('created_at')} AS "createdAt",
  secret_key_id AS "secretKeyId", secret_sealed AS "secretSealed", previous_key_id AS "previousKeyId", previous_sealed AS "previousSealed",
  ${EPOCH_MS('previous_expires_at')} AS "previousExpiresAt", idempotency_key AS "idempotencyKey", request_hash AS "requestHash"`;

type EndpointRow = Omit<WebhookEndpointRecord, 'secret' | 'previousSecret'> & {
  secretKeyId: string;
  secretSealed: Buffer;
  previousKeyId: string | null;
  previousSealed: Buffer | null;
  previousExpiresAt: number | null;
};

function endpointRecord(row: EndpointRow): WebhookEndpointRecord {
  const { secretKeyId, secretSealed, previousKeyId, previousSealed, previousExpiresAt, ...fields } = row;
  return {
    ...fields,
    secret: { keyId: secretKeyId, sealed: secretSealed },
    previousSecret: previousKeyId === null ? null : { keyId: previousKeyId, sealed: previousSealed!, expiresAt: previousExpiresAt! },
  };
}

/** The endpoints an owner may see: its account's, and with `operators` every operators' endpoint. */
const OWNED_BY = (accountId: string, operators: string) => `(account_id = ${accountId} OR (${operators} AND audience = 'operators'))`;

/** Inserts the endpoint; with an `idempotencyKey` already used by the account, answers that endpoint (`created: false`). */
export async function insertWebhookEndpoint(db: Queryable, endpoint: NewWebhookEndpoint): Promise<{ created: boolean; endpoint: WebhookEndpointRecord }> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (endpoint_id, account_id, audience, url, event_types, description, secret_key_id, secret_sealed, idempotency_key,
       request_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (account_id, idempotency_key) DO NOTHING
     RETURNING ${ENDPOINT_COLUMNS}`,
    [
      endpoint.endpointId,
      endpoint.accountId,
      endpoint.audience,
      endpoint.url,
      endpoint.eventTypes,
      endpoint.description,
      endpoint.secret.keyId,
      endpoint.secret.sealed,
      endpoint.idempotencyKey ?? null,
      endpoint.requestHash ?? null,
    ],
  );
  if (rows[0]) return { created: true, endpoint: endpointRecord(rows[0]) };
  const { rows: existing } = await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND idempotency_key = $2`, [
    endpoint.accountId,
    endpoint.idempotencyKey,
  ]);
  return { created: false, endpoint: endpointRecord(existing[0]!) };
}

export async function countWebhookEndpoints(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM webhook_endpoints WHERE account_id = $1', [accountId]);
  return rows[0]!.count;
}

/** The owner's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Queryable, owner: WebhookOwner): Promise<WebhookEndpointRecord[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE ${OWNED_BY('$1', '$2')} ORDER BY created_at, endpoint_id`,
    [owner.accountId, owner.operators],
  );
  return rows.map(endpointRecord);
}

/** One endpoint, if the owner may see it (`any`: the workers, who see every endpoint). */
export async function findWebhookEndpoint(db: Queryable, owner: WebhookOwner | 'any', endpointId: string): Promise<WebhookEndpointRecord | undefined> {
  const { rows } =
    owner === 'any'
      ? await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE endpoint_id = $1`, [endpointId])
      : await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE endpoint_id = $3 AND ${OWNED_BY('$1', '$2')}`, [
          owner.accountId,
          owner.operators,
          endpointId,
        ]);
  return rows[0] && endpointRecord(rows[0]);
}

/** Seals in a new secret; the current one becomes the previous, valid until `previousExpiresAt`. */
export async function rotateWebhookSecret(db: Queryable, endpointId: string, next: SealedSecret, previousExpiresAt: number): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET previous_key_id = secret_key_id, previous_sealed = secret_sealed, previous_expires_at = to_timestamp($4 / 1000.0),
            secret_key_id = $2, secret_sealed = $3, updated_at = clock_timestamp()
      WHERE endpoint_id = $1`,
    [endpointId, next.keyId, next.sealed, previousExpiresAt],
  );
}

/**
 * Enables (clearing the failure record, and queuing a wake-up) or disables an endpoint with the reason its owner
 * sees; a disabled endpoint's pending deliveries become `cancelled` (replayable).
 */
export async function setWebhookEndpointState(
  db: Queryable,
  endpointId: string,
  change: { state: 'enabled' } | { state: 'disabled'; by: WebhookDisabledBy; reason: string },
): Promise<void> {
  if (change.state === 'enabled') {
    await db.query(
      `WITH enabled AS (
         UPDATE webhook_endpoints SET state = 'enabled', disabled_by = NULL, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
                updated_at = clock_timestamp()
          WHERE endpoint_id = $1
         RETURNING endpoint_id
       )
       INSERT INTO webhook_endpoint_wakeups (endpoint_id) SELECT endpoint_id FROM enabled ON CONFLICT DO NOTHING`,
      [endpointId],
    );
    return;
  }
  await db.query(
    `WITH disabled AS (
       UPDATE webhook_endpoints SET state = 'disabled', disabled_by = $2, disabled_reason = $3, disabled_at = clock_timestamp(), updated_at = clock_timestamp()
        WHERE endpoint_id = $1
       RETURNING endpoint_id
     )
     UPDATE webhook_deliveries d SET state = 'cancelled' FROM disabled WHERE d.endpoint_id = disabled.endpoint_id AND d.state = 'pending'`,
    [endpointId, change.by, change.reason],
  );
}

/** Deletes the owner's endpoint with its deliveries; false when it was not theirs or not there. */
export async function deleteWebhookEndpoint(db: Queryable, owner: WebhookOwner, endpointId: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM webhook_endpoints WHERE endpoint_id = $3 AND ${OWNED_BY('$1', '$2')}`, [
    owner.accountId,
    owner.operators,
    endpointId,
  ]);
  return (rowCount ?? 0) > 0;
}

export type WebhookAttemptOutcome = 'delivered' | 'failed' | 'interrupted' | 'refused';

export interface WebhookAttemptRecord {
  attempt: number;
  startedAt: number;
  finishedAt: number | null;
  /** null while the attempt is in flight. `refused`: the URL resolved to a forbidden address at delivery. */
  outcome: WebhookAttemptOutcome | null;
  status: number | null;
  error: string | null;
  durationMs: number | null;
}

export type WebhookDeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface WebhookDeliveryRecord {
  /** Decimal string. */
  deliveryId: string;
  endpointId: string;
  state: WebhookDeliveryState;
  attempts: WebhookAttemptRecord[];
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  event: { id: string; type: WebhookEventType; timestamp: number; resource: { kind: WebhookResourceKind; id: string } };
}

const DELIVERY_COLUMNS = `d.delivery_id::text AS "deliveryId", d.endpoint_id AS "endpointId", d.state,
  CASE WHEN d.state = 'pending' THEN ${EPOCH_MS('d.next_attempt_at')} END AS "nextAttemptAt", ${EPOCH_MS('d.delivered_at')} AS "deliveredAt",
  e.seq::text AS sequence, e.type, ${EPOCH_MS('e.occurred_at')} AS timestamp, e.resource_kind AS "resourceKind", e.resource_id AS "resourceId",
  (SELECT coalesce(jsonb_agg(jsonb_build_object('attempt', a.attempt, 'startedAt', ${EPOCH_MS('a.started_at')}, 'finishedAt', ${EPOCH_MS('a.finished_at')},
            'outcome', a.outcome, 'status', a.status, 'error', a.error, 'durationMs', a.duration_ms) ORDER BY a.attempt), '[]'::jsonb)
     FROM webhook_attempts a WHERE a.delivery_id = d.delivery_id) AS attempts`;

export interface EventColumns {
  sequence: string;
  type: WebhookEventType;
  timestamp: number;
  resourceKind: WebhookResourceKind;
  resourceId: string;
}

type DeliveryRow = Omit<WebhookDeliveryRecord, 'event'> & EventColumns;

function deliveryRecord(row: DeliveryRow): WebhookDeliveryRecord {
  const { sequence, type, timestamp, resourceKind, resourceId, ...fields } = row;
  return { ...fields, event: { id: webhookEventId(sequence), type, timestamp, resource: { kind: resourceKind, id: resourceId } } };
}

/** The endpoint's deliveries, newest first, after the delivery id `after` (keyset), with their attempts. */
export async function listWebhookDeliveries(
  db: Queryable,
  endpointId: string,
  filter: { state?: WebhookDeliveryState; after?: string; limit: number },
): Promise<WebhookDeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq
      WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.state = $2) AND ($3::bigint IS NULL OR d.delivery_id < $3)
      ORDER BY d.delivery_id DESC LIMIT $4`,
    [endpointId, filter.state ?? null, filter.after ?? null, filter.limit],
  );
  return rows.map(deliveryRecord);
}

/** Puts a delivery back to `pending`, due now (same event, same `webhook-id`), and queues a wake-up. */
export async function replayWebhookDelivery(db: Queryable, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
  const { rows } = await db.query<{ endpointId: string }>(
    `WITH replayed AS (
       UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = clock_timestamp(), delivered_at = NULL
        WHERE endpoint_id = $1 AND delivery_id = $2
       RETURNING endpoint_id
     )
     INSERT INTO webhook_endpoint_wakeups (endpoint_id) SELECT endpoint_id FROM replayed ON CONFLICT DO NOTHING
     RETURNING endpoint_id AS "endpointId"`,
    [endpointId, deliveryId],
  );
  if (!rows[0]) return undefined;
  const { rows: replayed } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events e ON e.seq = d.event_seq WHERE d.delivery_id = $1`,
    [deliveryId],
  );
  return replayed[0] && deliveryRecord(replayed[0]);
}

/** A delivery claimed for an attempt: its lease keeps other workers off until the attempt is recorded. */
export interface DueWebhookDelivery {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  envelope: WebhookEnvelope;
}

export {
  claimDueWebhookDeliveries,
  endpointsWithPendingDeliveries,
  nextWebhookDueAt,
  pruneWebhookHistory,
  recordWebhookAttempt,
  takeWebhookWakeups,
} from './webhook-delivery-queue';
