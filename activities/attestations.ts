/**
 * Attestation lifecycle activities: record an attestation as executed or expired in PostgreSQL. Both only
 * move an attestation out of `outstanding`, so a retry (or a second workflow run) returns the outcome already
 * recorded instead of changing it.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  type AttestationLifecycleRecord,
  findAttestationLifecycle,
  markOutstandingAttestationExecuted,
  markOutstandingAttestationExpired,
} from '../db/queries/attestation-lifecycle';
import type { Database } from '../db/pool';
import { attestationFailureTypes, type AttestationExecution } from '../temporal/messages';

export interface AttestationActivityDependencies {
  db: Database;
}

export interface MarkAttestationExecutedParameters extends AttestationExecution {
  attestationId: string;
}

export interface MarkAttestationExpiredParameters {
  attestationId: string;
}

/** The attestation's lifecycle as recorded after the call. */
export type AttestationLifecycleResult = AttestationLifecycleRecord;

async function currentLifecycle(db: Database, attestationId: string): Promise<AttestationLifecycleRecord> {
  const current = await findAttestationLifecycle(db, attestationId);
  if (!current) {
    throw ApplicationFailure.create({
      type: attestationFailureTypes.notFound,
      message: `Attestation ${attestationId} does not exist`,
      nonRetryable: true,
    });
  }
  return current;
}

export function createAttestationActivities({ db }: AttestationActivityDependencies) {
  return {
    /**
     * Records the execution of an outstanding attestation. Already executed with the same tx hash, or already
     * expired: returns the recorded outcome unchanged. Already executed with another tx hash: a non-retryable
     * `ATTESTATION_EXECUTION_CONFLICT`.
     */
    async markAttestationExecuted(parameters: MarkAttestationExecutedParameters): Promise<AttestationLifecycleResult> {
      const updated = await markOutstandingAttestationExecuted(db, parameters);
      if (updated) return updated;
      const current = await currentLifecycle(db, parameters.attestationId);
      if (current.state === 'executed' && current.txHash !== parameters.txHash) {
        throw ApplicationFailure.create({
          type: attestationFailureTypes.executionConflict,
          message: `Attestation ${parameters.attestationId} is already executed by ${current.txHash}, not ${parameters.txHash}`,
          nonRetryable: true,
          details: [{ recordedTxHash: current.txHash, reportedTxHash: parameters.txHash }],
        });
      }
      return current;
    },

    /** Records that an outstanding attestation expired; an attestation already executed or expired is returned unchanged. */
    async markAttestationExpired(parameters: MarkAttestationExpiredParameters): Promise<AttestationLifecycleResult> {
      return (await markOutstandingAttestationExpired(db, parameters.attestationId)) ?? (await currentLifecycle(db, parameters.attestationId));
    },
  };
}

export type AttestationActivities = ReturnType<typeof createAttestationActivities>;
