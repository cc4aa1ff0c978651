/**
 * Client-side helpers for attestation lifecycle workflows: starting `attestation-<id>` when an attestation is
 * created (the API), and on worker start making sure every outstanding attestation has one (the worker).
 */
import { type Client, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Queryable } from '../db/pool';
import { forEachConcurrently } from '../domain/concurrency';
import { listOutstandingAttestations } from '../db/queries/attestation-lifecycle';
import { attestationWorkflowId } from '../temporal/workflow-ids';
import type { attestationWorkflow } from '../workflows';

/** How long after expiry a late chain watcher may still report an execution that happened before expiry. */
export const DEFAULT_SETTLEMENT_GRACE_MS = 10 * 60_000;

/** Outstanding attestations read per query during recovery. */
const RECOVERY_PAGE_SIZE = 500;
/** Workflow starts in flight at once during recovery. */
const RECOVERY_CONCURRENCY = 32;

export interface StartAttestationWorkflowParameters {
  /** 128-bit decimal string. */
  attestationId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  taskQueue: string;
  /** Default DEFAULT_SETTLEMENT_GRACE_MS. */
  settlementGraceMs?: number;
}

/**
 * Starts the lifecycle workflow of an attestation. Starting it again while it runs finds the running one;
 * after it closed, a new run starts (it records nothing new: the attestation is no longer outstanding).
 */
export async function startAttestationWorkflow(client: Client, parameters: StartAttestationWorkflowParameters) {
  const { attestationId, expiresAt, taskQueue, settlementGraceMs = DEFAULT_SETTLEMENT_GRACE_MS } = parameters;
  return await client.workflow.start<typeof attestationWorkflow>('attestationWorkflow', {
    workflowId: attestationWorkflowId(attestationId),
    taskQueue,
    args: [{ attestationId, expiresAt, settlementGraceMs }],
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
    await forEachConcurrently(page, RECOVERY_CONCURRENCY, ({ attestationId, expiresAt }) =>
      startAttestationWorkflow(client, { attestationId, expiresAt, taskQueue, settlementGraceMs }),
    );
    recovered += page.length;
    if (page.length < RECOVERY_PAGE_SIZE) return recovered;
    afterId = page[page.length - 1]!.attestationId;
  }
}
