/**
 * The lifecycle of one attestation, started with the business id `attestation-<id>` when the attestation is
 * created: it waits for the chain watcher's signal of a final execution or for the expiry plus a settlement grace,
 * then records `executed` (with the tx hash) or `expired` in PostgreSQL and returns the final state.
 *
 * The grace only lets a late watcher report an execution that happened before expiry; limits do not wait for
 * it, since SQL counts an attestation as outstanding only while it is `outstanding` and not yet expired (or
 * `executing`).
 *
 * An execution seen on chain but not final makes the attestation `executing` (the watcher writes it; the
 * `attestationExecutionSeen` / `attestationExecutionOrphaned` signals keep the query view in step and wake the
 * workflow). Past expiry and grace it expires only when SQL does not hold it `executing`; otherwise it waits for the
 * execution to be final or orphaned (`patched('chain-finality')`: histories recorded before replay as they ran).
 *
 * A Solana attestation's transaction lands until its durable nonce moves: just before its expiry (unless executed by
 * then; `patched('solana-nonce-lead')`, at the expiry in histories recorded before) the workflow advances the nonce (`advanceAttestationNonce`, retried until the chain shows it moved) before anything
 * counts it expired, and after an execution it gives the account back to the pool (`releaseExecutedAttestationNonce`)
 * — `patched('solana-nonce')`.
 */
import { ActivityFailure, ApplicationFailure, condition, log, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AttestationActivities } from '../activities/attestations';
import type { SolanaNonceActivities } from '../activities/solana-nonces';
import {
  type AttestationExecution,
  attestationExecutedSignal,
  attestationExecutionOrphanedSignal,
  attestationExecutionSeenSignal,
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

const { advanceAttestationNonce, releaseExecutedAttestationNonce } = proxyActivities<SolanaNonceActivities>({
  startToCloseTimeout: '30 seconds',
  // Retried until the ledger shows the nonce moved (NonceNotAdvancedError) or a worker with the ledger runs it.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});

/** The chain whose attestations hold a durable nonce (domain/chains.ts SOLANA_CHAIN; workflows import no values from there). */
const NONCE_CHAIN = 'solana-900';

/**
 * How long before a Solana attestation's expiry its nonce is advanced: the timer, a workflow task, the activity and
 * the advance's landing (a slot or two) fit in it, so a transaction sent after the expiry is refused as the EVM
 * contracts refuse one; one sent in the last two seconds may be refused too, as a late block refuses it on EVM.
 */
const NONCE_ADVANCE_LEAD_MS = 2_000;

/** How long a wait for an execution that is not final yet goes before looking at SQL again (a lost wake-up costs no more). */
const EXECUTING_RECHECK = '10 minutes';

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

  // Seen and orphaned executions: the view follows them, and each wakes a wait on an execution not final yet.
  let wakeUps = 0;
  let seenIn: string | undefined;
  setHandler(attestationExecutionSeenSignal, (seen) => {
    wakeUps += 1;
    if (execution || settled || typeof seen?.txHash !== 'string') return;
    view.state = 'executing';
    view.txHash = seen.txHash;
    seenIn = seen.blockHash;
  });
  setHandler(attestationExecutionOrphanedSignal, (orphaned) => {
    wakeUps += 1;
    if (execution || settled || view.state !== 'executing' || view.txHash !== orphaned?.txHash || seenIn !== orphaned.blockHash) return;
    view.state = 'outstanding';
    view.txHash = null;
  });

  const holdsNonce = input.chain === NONCE_CHAIN && patched('solana-nonce');
  if (holdsNonce) {
    // By its expiry its transaction must be impossible (nothing on chain reads a Solana quote's time): the nonce is
    // advanced NONCE_ADVANCE_LEAD_MS before it, so the advance has landed when the quote expires.
    const advanceAt = patched('solana-nonce-lead') ? expiresAt - NONCE_ADVANCE_LEAD_MS : expiresAt;
    await condition(() => execution !== undefined, Math.max(1, advanceAt - Date.now()));
    if (!execution) await advanceAttestationNonce({ attestationId });
  }
  const settleBy = expiresAt + input.settlementGraceMs;
  await condition(() => execution !== undefined, Math.max(1, settleBy - Date.now()));

  let outcome: Awaited<ReturnType<typeof markAttestationExpired>> | undefined;
  if (!execution && patched('chain-finality')) {
    // Expires only from `outstanding`: an execution on chain that is not final yet keeps it alive until it is final or gone.
    for (;;) {
      const current = await recording(markAttestationExpired({ attestationId }));
      if (current.state !== 'executing') {
        outcome = current;
        break;
      }
      view.state = 'executing';
      view.txHash = current.txHash;
      const seen = wakeUps;
      await condition(() => execution !== undefined || wakeUps > seen, EXECUTING_RECHECK);
      if (execution) break;
    }
  }
  settled = true;

  const recorded =
    outcome ??
    (execution
      ? await recording(markAttestationExecuted({ attestationId, txHash: execution.txHash, executedAt: execution.executedAt }))
      : await recording(markAttestationExpired({ attestationId })));
  view.state = recorded.state;
  view.txHash = recorded.txHash;
  // The executed transaction advanced the nonce itself: its account goes back to the pool.
  if (holdsNonce && recorded.state === 'executed') await releaseExecutedAttestationNonce({ attestationId });
  return { ...view };
}
