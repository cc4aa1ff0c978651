/**
 * One partner mint (`partner-mint-<issuerRequestId>`, started when the broker's issuance is stored). Waits for the
 * broker's confirm that the shares were journalled to the issuer's account (a rejected confirm, or none within
 * `confirmTimeoutMs`, ends it `rejected` with nothing minted); holds while the market or the asset is paused; mints
 * qty ÷ multiplier tokens with `processMint` — once, whatever retries and restarts happen; calls the broker back
 * with the transaction hash; `completed`. A mint the contract refuses is stored `needs_review` and waits for an
 * operator: resumed, it is tried again; rejected by the operator, it ends `rejected` and its limit is released. A
 * callback the broker keeps refusing waits the same way (see `callBrokerBack`).
 */
import { condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  brokerConfirmSignal,
  partnerRequestStateQuery,
  type BrokerConfirm,
  type PartnerMintInput,
  type PartnerRequestWorkflowState,
} from '../temporal/messages';
import {
  callBrokerBack,
  DEFAULT_POLL_INTERVAL_MS,
  holdWhilePaused,
  partnerActivities,
  partnerChainActivities,
  resumeCounter,
  trackView,
  waitForResume,
} from './partner-steps';

const DEFAULT_CONFIRM_TIMEOUT_MS = 60 * 60_000;
/** How often a wait for the confirm looks at the stored request too (a confirm stored while its signal was lost). */
const CONFIRM_RECHECK_MS = 60_000;

export async function partnerMintWorkflow(input: PartnerMintInput): Promise<PartnerRequestWorkflowState> {
  const { issuerRequestId } = input;
  const pollMs = input.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const view: PartnerRequestWorkflowState = { issuerRequestId, kind: 'mint', state: 'created', step: 'awaiting_confirm', reason: null, txHash: null };
  setHandler(partnerRequestStateQuery, () => ({ ...view }));
  let confirm: BrokerConfirm | undefined;
  setHandler(brokerConfirmSignal, (signalled) => {
    confirm ??= signalled;
  });
  const resumes = resumeCounter();

  let request = await partnerActivities.loadPartnerRequest({ issuerRequestId });
  trackView(view, request);
  const deadline = workflowInfo().startTime.getTime() + (input.confirmTimeoutMs ?? DEFAULT_CONFIRM_TIMEOUT_MS);
  while (request.state === 'created') {
    while (!confirm) {
      if (request.confirmStatus) confirm = { status: request.confirmStatus, reason: request.reason ?? undefined };
      const left = deadline - Date.now();
      if (confirm || left <= 0) break;
      if (!(await condition(() => confirm !== undefined, Math.min(left, CONFIRM_RECHECK_MS)))) {
        request = await partnerActivities.loadPartnerRequest({ issuerRequestId });
      }
    }
    const rejection = !confirm ? 'the broker did not confirm the journal in time' : confirm.status === 'rejected' ? (confirm.reason ?? 'the broker rejected the journal') : undefined;
    // Timing out applies only while no confirm is stored; one that landed meanwhile is read on the next turn.
    request = await partnerActivities.setPartnerRequestState({
      issuerRequestId,
      state: rejection ? 'rejected' : 'confirmed',
      from: ['created'],
      ...(rejection ? { reason: rejection } : {}),
      ...(confirm ? {} : { unconfirmed: true }),
    });
    trackView(view, request);
  }

  for (let attempt = 1; request.state === 'confirmed'; attempt += 1) {
    view.step = 'minting';
    await holdWhilePaused(view, request.tokenSymbol, pollMs);
    // Histories recorded before refusals were stored kept the request `confirmed` while it waited.
    const stored = patched('partner-mint-review');
    const minted = await partnerChainActivities.mintPartnerTokens({ issuerRequestId, attempt, ...(stored ? { review: true } : {}) });
    if (minted.outcome === 'refused') {
      if (stored) view.state = 'needs_review';
      await waitForResume(view, resumes, minted.reason);
      // Back to `confirmed` to be tried again, unless an operator rejected it meanwhile.
      if (stored) await partnerActivities.setPartnerRequestState({ issuerRequestId, state: 'confirmed', from: ['needs_review'], reason: null });
    }
    request = await partnerActivities.loadPartnerRequest({ issuerRequestId });
    trackView(view, request);
  }

  if (request.state === 'minted') {
    view.step = 'calling_back';
    await callBrokerBack(view, resumes, issuerRequestId, 'minted');
    request = await partnerActivities.setPartnerRequestState({ issuerRequestId, state: 'completed', from: ['minted'] });
    trackView(view, request);
  }
  view.step = 'done';
  return { ...view };
}
