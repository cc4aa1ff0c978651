/**
 * Client-side helpers for attestation lifecycle workflows, run by the worker: starting `attestation-<id>` for every
 * attestation stored (the outbox its insert writes, drained continuously), and on worker start making sure every
 * outstanding attestation has one.
 */
import { type Client, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Logger } from '../config/logger';
import { runOutboxDrain } from '../db/due-work-loop';
import { inTransaction, type Database, type Queryable } from '../db/pool';
import { forEachConcurrently } from '../domain/concurrency';
import { claimAttestationWorkflowStarts, deleteAttestationWorkflowStarts, listOutstandingAttestations } from '../db/queries/attestation-lifecycle';
import { attestationWorkflowId } from '../temporal/workflow-ids';
import type { attestationWorkflow } from '../workflows';

/** How long after expiry a late chain watcher may still report an execution that happened before expiry. */
export const DEFAULT_SETTLEMENT_GRACE_MS = 10 * 60_000;

/** Outstanding attestations read per query during recovery. */
const RECOVERY_PAGE_SIZE = 500;
/** Workflow starts in flight at once during recovery and while draining the outbox. */
const START_CONCURRENCY = 32;
/** Outbox rows taken per transaction. */
const STARTS_PER_PASS = 200;
/** How often an idle worker looks at the outbox: the longest an attestation waits for its workflow to start. */
const STARTS_POLL_MS = 100;
/** After a pass whose starts failed (the service away), the next waits this long, doubling up to the maximum. */
const STARTS_RETRY_MS = { first: 500, max: 10_000 };

export interface StartAttestationWorkflowParameters {
  /** 128-bit decimal string. */
  attestationId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  taskQueue: string;
  /** Default DEFAULT_SETTLEMENT_GRACE_MS. */
  settlementGraceMs?: number;
  /** The attestation's chain (a Solana attestation's workflow advances its nonce at expiry). */
  chain?: string;
}

/**
 * Starts the lifecycle workflow of an attestation. Starting it again while it runs finds the running one;
 * after it closed, a new run starts (it records nothing new: the attestation is no longer outstanding).
 */
export async function startAttestationWorkflow(client: Client, parameters: StartAttestationWorkflowParameters) {
  const { attestationId, expiresAt, taskQueue, settlementGraceMs = DEFAULT_SETTLEMENT_GRACE_MS, chain } = parameters;
  return await client.workflow.start<typeof attestationWorkflow>('attestationWorkflow', {
    workflowId: attestationWorkflowId(attestationId),
    taskQueue,
    args: [{ attestationId, expiresAt, settlementGraceMs, ...(chain === undefined ? {} : { chain }) }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
}

export type StartAttestationWorkflowResult = Awaited<ReturnType<typeof startAttestationWorkflow>>;

export interface RecoverAttestationWorkflowsParameters {
  db: Queryable;
  client: Client;
  taskQueue: string;
  /** Default DEFAULT_SETTLEMENT_GRACE_MS. */
  settlementGraceMs?: number;
  /**
   * Epoch milliseconds, default now: attestations created after it are left to the caller that creates them
   * (which starts their workflow itself).
   */
  now?: number;
}

/**
 * Makes sure every outstanding attestation has a running lifecycle workflow: starts one where none runs
 * (never started, or an earlier run closed without settling it) and finds the running one otherwise. Past
 * expiries settle at once. Returns how many workflows it started or found.
 */
export async function recoverAttestationWorkflows(parameters: RecoverAttestationWorkflowsParameters): Promise<number> {
  const { db, client, taskQueue, settlementGraceMs = DEFAULT_SETTLEMENT_GRACE_MS } = parameters;
  const createdAtOrBefore = parameters.now ?? Date.now();
  let afterId: string | undefined;
  let recovered = 0;
  for (;;) {
    const page = await listOutstandingAttestations(db, { afterId, limit: RECOVERY_PAGE_SIZE, createdAtOrBefore });
    await forEachConcurrently(page, START_CONCURRENCY, ({ attestationId, expiresAt, chain }) =>
      startAttestationWorkflow(client, { attestationId, expiresAt, taskQueue, settlementGraceMs, chain }),
    );
    recovered += page.length;
    if (page.length < RECOVERY_PAGE_SIZE) return recovered;
    afterId = page[page.length - 1]!.attestationId;
  }
}

export interface AttestationWorkflowStartsParameters {
  db: Database;
  client: Client;
  taskQueue: string;
  logger: Logger;
  /** Default DEFAULT_SETTLEMENT_GRACE_MS. */
  settlementGraceMs?: number;
}

/**
 * Starts the workflows of the attestations in the outbox, up to STARTS_PER_PASS of them, and removes them from it in
 * the transaction that holds them: a worker that dies midway leaves them to the next pass, whose starts find the
 * running workflows. Answers how many it started or found.
 */
export async function startStoredAttestationWorkflows(parameters: Omit<AttestationWorkflowStartsParameters, 'logger'>): Promise<number> {
  const { client, taskQueue, settlementGraceMs = DEFAULT_SETTLEMENT_GRACE_MS } = parameters;
  return inTransaction(parameters.db, async (db) => {
    const due = await claimAttestationWorkflowStarts(db, STARTS_PER_PASS);
    await forEachConcurrently(due, START_CONCURRENCY, ({ attestationId, expiresAt, chain }) =>
      startAttestationWorkflow(client, { attestationId, expiresAt, taskQueue, settlementGraceMs, chain }),
    );
    if (due.length > 0) await deleteAttestationWorkflowStarts(db, due.map(({ attestationId }) => attestationId));
    return due.length;
  });
}

/**
 * Drains the outbox while the worker runs: at once, then every STARTS_POLL_MS, until stopped; after a failed pass
 * (one warning) it waits STARTS_RETRY_MS, doubling, before the next.
 */
export function runAttestationWorkflowStarts(parameters: AttestationWorkflowStartsParameters): { stop(): Promise<void> } {
  return runOutboxDrain({
    name: 'attestation workflow starts',
    logger: parameters.logger,
    pollMs: STARTS_POLL_MS,
    retryMs: STARTS_RETRY_MS,
    failure: 'starting stored attestation workflows failed; retrying',
    perPass: STARTS_PER_PASS,
    pass: () => startStoredAttestationWorkflows(parameters),
  });
}
