/**
 * Webhooks in SQL: the endpoints an account registers (their signing secrets only sealed), the deliveries the
 * triggers of migration 020 queue for them, the attempts of each delivery, and the wake-ups that tell the worker an
 * endpoint has new work.
 */
import type { WebhookAudience, WebhookEnvelope, WebhookEventType, WebhookResourceKind } from '../../domain/webhook-events';
import type { Queryable } from '../pool';

const PENDING = 'issue 37 contract: implemented by the events and outbox work package';

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

/** Inserts the endpoint; with an `idempotencyKey` already used by the account, answers that endpoint (`created: false`). */
export async function insertWebhookEndpoint(db: Queryable, endpoint: NewWebhookEndpoint): Promise<{ created: boolean; endpoint: WebhookEndpointRecord }> {
  void [db, endpoint];
  throw new Error(PENDING);
}

export async function countWebhookEndpoints(db: Queryable, accountId: string): Promise<number> {
  void [db, accountId];
  throw new Error(PENDING);
}

/** The owner's endpoints, oldest first. */
export async function listWebhookEndpoints(db: Queryable, owner: WebhookOwner): Promise<WebhookEndpointRecord[]> {
  void [db, owner];
  throw new Error(PENDING);
}

/** One endpoint, if the owner may see it (`any`: the workers, who see every endpoint). */
export async function findWebhookEndpoint(db: Queryable, owner: WebhookOwner | 'any', endpointId: string): Promise<WebhookEndpointRecord | undefined> {
  void [db, owner, endpointId];
  throw new Error(PENDING);
}

/** Seals in a new secret; the current one becomes the previous, valid until `previousExpiresAt`. */
export async function rotateWebhookSecret(db: Queryable, endpointId: string, next: SealedSecret, previousExpiresAt: number): Promise<void> {
  void [db, endpointId, next, previousExpiresAt];
  throw new Error(PENDING);
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
  void [db, endpointId, change];
  throw new Error(PENDING);
}

/** Deletes the owner's endpoint with its deliveries; false when it was not theirs or not there. */
export async function deleteWebhookEndpoint(db: Queryable, owner: WebhookOwner, endpointId: string): Promise<boolean> {
  void [db, owner, endpointId];
  throw new Error(PENDING);
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

/** The endpoint's deliveries, newest first, after the delivery id `after` (keyset), with their attempts. */
export async function listWebhookDeliveries(
  db: Queryable,
  endpointId: string,
  filter: { state?: WebhookDeliveryState; after?: string; limit: number },
): Promise<WebhookDeliveryRecord[]> {
  void [db, endpointId, filter];
  throw new Error(PENDING);
}

/** Puts a delivery back to `pending`, due now (same event, same `webhook-id`), and queues a wake-up. */
export async function replayWebhookDelivery(db: Queryable, endpointId: string, deliveryId: string): Promise<WebhookDeliveryRecord | undefined> {
  void [db, endpointId, deliveryId];
  throw new Error(PENDING);
}

/** Takes up to `limit` endpoints with new work (FOR UPDATE SKIP LOCKED) and deletes their wake-ups: call it in a transaction. */
export async function takeWebhookWakeups(db: Queryable, limit: number): Promise<string[]> {
  void [db, limit];
  throw new Error(PENDING);
}

/** Enabled endpoints with pending deliveries: a worker starting wakes them all, in case a wake-up was lost. */
export async function endpointsWithPendingDeliveries(db: Queryable): Promise<string[]> {
  void [db];
  throw new Error(PENDING);
}

/** A delivery claimed for an attempt: its lease keeps other workers off until the attempt is recorded. */
export interface DueWebhookDelivery {
  deliveryId: string;
  /** 1 for the first attempt. */
  attempt: number;
  envelope: WebhookEnvelope;
}

/**
 * Claims the endpoint's due deliveries, at most one per resource and only the oldest pending of each (so a
 * resource's events arrive in order), leasing each for `leaseMs` and opening its attempt. Attempts whose lease ran
 * out (a worker gone mid-send) are closed as `interrupted` first.
 */
export async function claimDueWebhookDeliveries(db: Queryable, endpointId: string, options: { limit: number; leaseMs: number }): Promise<DueWebhookDelivery[]> {
  void [db, endpointId, options];
  throw new Error(PENDING);
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
  void [db, attempt];
  throw new Error(PENDING);
}

/** Epoch ms of the endpoint's earliest pending next attempt, or null. */
export async function nextWebhookDueAt(db: Queryable, endpointId: string): Promise<number | null> {
  void [db, endpointId];
  throw new Error(PENDING);
}

/** Deletes finished deliveries (and events no delivery needs any more) older than `olderThan` (epoch ms). */
export async function pruneWebhookHistory(db: Queryable, olderThan: number): Promise<{ deliveries: number; events: number }> {
  void [db, olderThan];
  throw new Error(PENDING);
}
