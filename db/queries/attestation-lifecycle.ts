/**
 * The attestation lifecycle in SQL: the moves out of `outstanding` (to `executed` or `expired`), each made
 * only from `outstanding` (or, for `executed`, from `executing` by the same transaction) so a retry or a second
 * caller changes nothing — an attestation `executing` on chain never expires here; the outbox of workflows to start
 * (`attestation_workflow_starts`, written with each attestation); and the paged list of outstanding attestations
 * that worker start-up recovery walks. Creating attestations lives in `attestations.ts`.
 */
import type { AttestationState } from '../../domain/attestation-state';
import type { Queryable } from '../pool';

/** Where an attestation stands in its lifecycle. */
export interface AttestationLifecycleRecord {
  /** 128-bit decimal string. */
  attestationId: string;
  state: AttestationState;
  /** Epoch milliseconds. */
  expiresAt: number;
  txHash: string | null;
  /** Epoch milliseconds: the execution's block time (also while executing), or the expiry; null while outstanding. */
  stateChangedAt: number | null;
}

const COLUMNS = `attestation_id::text AS "attestationId", state, expires_at AS "expiresAt",
  execution_tx_hash AS "txHash", state_changed_at AS "stateChangedAt"`;

export async function findAttestationLifecycle(db: Queryable, attestationId: string): Promise<AttestationLifecycleRecord | undefined> {
  const { rows } = await db.query<AttestationLifecycleRecord>(`SELECT ${COLUMNS} FROM attestations WHERE attestation_id = $1::numeric`, [
    attestationId,
  ]);
  return rows[0];
}

/**
 * Records the on-chain execution of an outstanding attestation, or of one `executing` by the same transaction
 * (`state_changed_at` = the block time). Returns the updated row, or undefined when the attestation was neither (or
 * does not exist): the caller reads the current row then.
 */
export async function markOutstandingAttestationExecuted(
  db: Queryable,
  execution: { attestationId: string; txHash: string; executedAt: number },
): Promise<AttestationLifecycleRecord | undefined> {
  const { rows } = await db.query<AttestationLifecycleRecord>(
    `UPDATE attestations SET state = 'executed', execution_tx_hash = $2, state_changed_at = $3
     WHERE attestation_id = $1::numeric AND (state = 'outstanding' OR (state = 'executing' AND execution_tx_hash = $2))
     RETURNING ${COLUMNS}`,
    [execution.attestationId, execution.txHash, execution.executedAt],
  );
  return rows[0];
}

/**
 * Records that an outstanding attestation expired (`state_changed_at` = its expiry, however late this runs).
 * Returns the updated row, or undefined when the attestation was not outstanding (or does not exist).
 */
export async function markOutstandingAttestationExpired(db: Queryable, attestationId: string): Promise<AttestationLifecycleRecord | undefined> {
  const { rows } = await db.query<AttestationLifecycleRecord>(
    `UPDATE attestations SET state = 'expired', state_changed_at = expires_at
     WHERE attestation_id = $1::numeric AND state = 'outstanding'
     RETURNING ${COLUMNS}`,
    [attestationId],
  );
  return rows[0];
}

/** One page of outstanding attestations. */
export interface OutstandingAttestation {
  attestationId: string;
  expiresAt: number;
  chain: string;
}

/**
 * Outstanding attestations created at or before `createdAtOrBefore`, in id order after `afterId` (keyset
 * paging: pass the last id of the previous page, or undefined for the first page).
 */
export async function listOutstandingAttestations(
  db: Queryable,
  page: { afterId: string | undefined; limit: number; createdAtOrBefore: number },
): Promise<OutstandingAttestation[]> {
  const { rows } = await db.query<OutstandingAttestation>(
    `SELECT attestation_id::text AS "attestationId", expires_at AS "expiresAt", chain FROM attestations
     WHERE state = 'outstanding' AND created_at <= $3 AND ($1::numeric IS NULL OR attestation_id > $1::numeric)
     ORDER BY attestation_id LIMIT $2`,
    [page.afterId ?? null, page.limit, page.createdAtOrBefore],
  );
  return rows;
}

/**
 * Takes up to `limit` attestations whose workflow is still to be started, oldest first, locking their outbox rows
 * until the transaction of `db` ends; rows another transaction holds are skipped (several workers share the outbox).
 */
export async function claimAttestationWorkflowStarts(db: Queryable, limit: number): Promise<OutstandingAttestation[]> {
  const { rows } = await db.query<OutstandingAttestation>({
    name: 'claim-attestation-workflow-starts',
    text: `SELECT s.attestation_id::text AS "attestationId", a.expires_at AS "expiresAt", a.chain
             FROM attestation_workflow_starts s JOIN attestations a USING (attestation_id)
            ORDER BY s.stored_at
            LIMIT $1
              FOR UPDATE OF s SKIP LOCKED`,
    values: [limit],
  });
  return rows;
}

/** Removes from the outbox the attestations whose workflows were started. */
export async function deleteAttestationWorkflowStarts(db: Queryable, attestationIds: string[]): Promise<void> {
  await db.query('DELETE FROM attestation_workflow_starts WHERE attestation_id = ANY($1::numeric[])', [attestationIds]);
}

/** Whether the attestation's workflow is still waiting in the outbox to be started. */
export async function attestationWorkflowStartPending(db: Queryable, attestationId: string): Promise<boolean> {
  const { rows } = await db.query<{ pending: boolean }>('SELECT EXISTS (SELECT 1 FROM attestation_workflow_starts WHERE attestation_id = $1) AS pending', [attestationId]);
  return rows[0]!.pending;
}
