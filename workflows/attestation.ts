/**
 * The lifecycle of one attestation, started with the business id `attestation-<id>` when the attestation is
 * created: it waits for the chain watcher's execution signal or for the expiry plus a settlement grace, then
 * records `executed` (with the tx hash) or `expired` in PostgreSQL and returns the final state.
 *
 * The grace only lets a late watcher report an execution that happened before expiry; limits do not wait for
 * it, since SQL counts an attestation as outstanding only while it is `outstanding` and not yet expired.
 */
import { ActivityFailure, ApplicationFailure, condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AttestationActivities } from '../activities/attestations';
import {
  type AttestationExecution,
  attestationExecutedSignal,
  type AttestationFailureType,
  attestationFailureTypes,
  attestationStateQuery,
  type AttestationWorkflowInput,
  type AttestationWorkflowState,
} from '../temporal/messages';

const { markAttestationExecuted, markAttestationExpired } = proxyActivities<AttestationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

const FAILURE_TYPES: ReadonlySet<string> = new Set<AttestationFailureType>(Object.values(attestationFailureTypes));

/** Rethrows an activity's business failure as this workflow's own, keeping its type; anything else as is. */
async function recording<T>(activity: Promise<T>): Promise<T> {
  try {
    return await activity;
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type && FAILURE_TYPES.has(cause.type)) {
      throw ApplicationFailure.create({ type: cause.type, message: cause.message, nonRetryable: true, cause: error as ActivityFailure });
    }
    throw error;
  }
}

function isWellFormed(execution: AttestationExecution): boolean {
  return typeof execution?.txHash === 'string' && execution.txHash.length > 0 && Number.isFinite(execution.executedAt);
}

export async function attestationWorkflow(input: AttestationWorkflowInput): Promise<AttestationWorkflowState> {
  const { attestationId, expiresAt } = input;
  const view: AttestationWorkflowState = { attestationId, state: 'outstanding', expiresAt, txHash: null };
  let execution: AttestationExecution | undefined;
  let settled = false;

  setHandler(attestationStateQuery, () => ({ ...view }));
  setHandler(attestationExecutedSignal, (reported) => {
    if (!isWellFormed(reported)) {
      log.warn('malformed execution signal ignored', { attestationId, reported });
    } else if (execution) {
      if (reported.txHash !== execution.txHash) log.warn('second execution signal ignored', { attestationId, recorded: execution.txHash, reported: reported.txHash });
    } else if (settled) {
      log.warn('execution signal after settlement ignored', { attestationId, reported: reported.txHash });
    } else if (reported.executedAt > expiresAt) {
      log.warn('execution after expiry ignored', { attestationId, reported: reported.txHash, executedAt: reported.executedAt, expiresAt });
    } else {
      execution = reported;
      view.state = 'executed';
      view.txHash = reported.txHash;
    }
  });

  const settleBy = expiresAt + input.settlementGraceMs;
  await condition(() => execution !== undefined, Math.max(1, settleBy - Date.now()));
  settled = true;

  const recorded = execution
    ? await recording(markAttestationExecuted({ attestationId, txHash: execution.txHash, executedAt: execution.executedAt }))
    : await recording(markAttestationExpired({ attestationId }));
  view.state = recorded.state;
  view.txHash = recorded.txHash;
  return { ...view };
}
