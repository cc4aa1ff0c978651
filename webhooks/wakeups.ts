/**
 * Client-side helpers for the webhook endpoint workflows, run by the worker: waking `webhook-endpoint-<id>` (started
 * if it is not running) for every endpoint the triggers of migration 020 queued a wake-up for (the outbox, drained
 * continuously), and on worker start for every enabled endpoint that has pending deliveries (a wake-up lost).
 */
import type { Client } from '@temporalio/client';
import type { Logger } from '../config/logger';
import { runOutboxDrain } from '../db/due-work-loop';
import { inTransaction, type Database, type Queryable } from '../db/pool';
import { endpointsWithPendingDeliveries, takeWebhookWakeups } from '../db/queries/webhooks';
import { forEachConcurrently } from '../domain/concurrency';
import { LONG_LIVED_WORKFLOW_TASK_TIMEOUT } from '../temporal/long-lived';
import { webhookDeliveriesDueSignal } from '../temporal/messages';
import { webhookEndpointWorkflowId } from '../temporal/workflow-ids';
import type { webhookEndpointWorkflow } from '../workflows';

/** Signals in flight at once. */
const SIGNAL_CONCURRENCY = 32;
/** Wake-ups taken per transaction. */
const WAKEUPS_PER_PASS = 200;
/** How often an idle worker looks at the wake-ups: the longest a new event waits for its endpoint's workflow. */
const WAKEUPS_POLL_MS = 100;
/** After a pass whose signals failed (the service away), the next waits this long, doubling up to the maximum. */
const WAKEUPS_RETRY_MS = { first: 500, max: 10_000 };

export interface WebhookWakeupsParameters {
  db: Database;
  client: Client;
  taskQueue: string;
  logger: Logger;
}

/** Signals the endpoint's workflow that deliveries are due, starting it first when none runs (a second start finds it). */
export async function wakeWebhookEndpoint(client: Client, taskQueue: string, endpointId: string): Promise<void> {
  await client.workflow.signalWithStart<typeof webhookEndpointWorkflow>('webhookEndpointWorkflow', {
    workflowId: webhookEndpointWorkflowId(endpointId),
    taskQueue,
    args: [{ endpointId }],
    signal: webhookDeliveriesDueSignal,
    signalArgs: [],
    workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
  });
}

/**
 * Wakes the workflows of up to WAKEUPS_PER_PASS endpoints with new work, and removes their wake-ups in the
 * transaction that holds them: a worker that dies midway leaves them to the next pass. Answers how many it woke.
 */
export async function wakeWebhookEndpoints(parameters: Omit<WebhookWakeupsParameters, 'logger'>): Promise<number> {
  const { client, taskQueue } = parameters;
  return inTransaction(parameters.db, async (db) => {
    const endpoints = await takeWebhookWakeups(db, WAKEUPS_PER_PASS);
    await forEachConcurrently(endpoints, SIGNAL_CONCURRENCY, (endpointId) => wakeWebhookEndpoint(client, taskQueue, endpointId));
    return endpoints.length;
  });
}

/**
 * Drains the wake-ups while the worker runs: at once, then every WAKEUPS_POLL_MS, until stopped; after a failed pass
 * (one warning) it waits WAKEUPS_RETRY_MS, doubling, before the next.
 */
export function runWebhookWakeups(parameters: WebhookWakeupsParameters): { stop(): Promise<void> } {
  return runOutboxDrain({
    name: 'webhook wake-ups',
    logger: parameters.logger,
    pollMs: WAKEUPS_POLL_MS,
    retryMs: WAKEUPS_RETRY_MS,
    failure: 'waking webhook endpoints failed; retrying',
    perPass: WAKEUPS_PER_PASS,
    pass: () => wakeWebhookEndpoints(parameters),
  });
}

/** Wakes every enabled endpoint with pending deliveries (at worker start: a wake-up may have been lost). Answers how many. */
export async function recoverWebhookEndpoints(parameters: { db: Queryable; client: Client; taskQueue: string }): Promise<number> {
  const endpoints = await endpointsWithPendingDeliveries(parameters.db);
  await forEachConcurrently(endpoints, SIGNAL_CONCURRENCY, (endpointId) => wakeWebhookEndpoint(parameters.client, parameters.taskQueue, endpointId));
  return endpoints.length;
}
