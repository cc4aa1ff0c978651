/**
 * One redemption: tokens a wallet burned through the issuer contract, named by the log that shows it
 * (`redemption-<chainId>-<txHash>-<logIndex>`, started by the chain watcher; a second start is refused by id).
 * It records the burn, then carries the partner side through to the shares delivered:
 * - the client linked to the wallet; none: `needs_review` until an operator assigns one and resumes it;
 * - held while the market or the asset is paused;
 * - counted against the session's redemption limit (over it: it waits for a later session, burnt tokens are never
 *   refused); the shares owed are tokens × multiplier rounded down to nine decimals, the dust recorded;
 * - the broker's redeem callback (one it keeps refusing waits for an operator in `needs_review`), then the broker's
 *   record polled until the shares are journalled: `completed`.
 * Histories recorded before the partner side existed end after the record (`patched('partner-redemption')`).
 */
import { patched, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { RedemptionActivities } from '../activities/redemptions';
import {
  partnerRequestStateQuery,
  redemptionStateQuery,
  type PartnerRequestWorkflowState,
  type RedemptionInput,
  type RedemptionWorkflowState,
} from '../temporal/messages';
import { callBrokerBack, DEFAULT_POLL_INTERVAL_MS, holdWhilePaused, partnerActivities, resumeCounter, trackView, waitForResume } from './partner-steps';

const { recordPendingRedemption } = proxyActivities<RedemptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The longest pause between two looks at the broker's record. */
const MAX_BROKER_POLL_MS = 60_000;

export async function redemptionWorkflow(input: RedemptionInput): Promise<RedemptionWorkflowState> {
  const view: RedemptionWorkflowState = { redemptionId: workflowInfo().workflowId, state: 'pending', symbol: null };
  setHandler(redemptionStateQuery, () => ({ ...view }));
  const recorded = await recordPendingRedemption({ ...input, redemptionId: view.redemptionId });
  view.symbol = recorded.symbol;
  if (patched('partner-redemption')) {
    view.state = await deliverShares(view.redemptionId, input.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  }
  return { ...view };
}

async function deliverShares(issuerRequestId: string, pollMs: number): Promise<RedemptionWorkflowState['state']> {
  const view: PartnerRequestWorkflowState = { issuerRequestId, kind: 'redeem', state: 'pending', step: 'opening', reason: null, txHash: null };
  setHandler(partnerRequestStateQuery, () => ({ ...view }));
  const resumes = resumeCounter();

  let request = await partnerActivities.openPartnerRedemption({ redemptionId: issuerRequestId });
  trackView(view, request);
  while (request.state === 'needs_review') {
    await waitForResume(view, resumes, request.reason ?? 'no client is linked to the wallet');
    request = await partnerActivities.loadPartnerRequest({ issuerRequestId });
    trackView(view, request);
  }

  let dustOnly = false;
  if (request.state === 'pending') {
    view.step = 'settling';
    for (;;) {
      await holdWhilePaused(view, request.tokenSymbol, pollMs);
      const reservation = await partnerActivities.reservePartnerRedemption({ issuerRequestId, at: Date.now() });
      if (reservation.outcome === 'reserved') break;
      if (reservation.outcome === 'dust') {
        dustOnly = true;
        break;
      }
      if (reservation.outcome === 'wait') {
        view.step = 'waiting_for_limit';
        view.reason = reservation.reason;
        await sleep(Math.max(reservation.until - Date.now(), 1_000));
      } else {
        await waitForResume(view, resumes, reservation.reason);
      }
      view.step = 'settling';
    }
    if (dustOnly) {
      // Less than a billionth of a share: nothing to deliver, the whole amount is recorded as dust.
      request = await partnerActivities.setPartnerRequestState({ issuerRequestId, state: 'completed', from: ['pending'], reason: 'dust only: nothing to deliver' });
    } else {
      view.step = 'calling_back';
      await callBrokerBack(view, resumes, issuerRequestId, 'pending');
      request = await partnerActivities.loadPartnerRequest({ issuerRequestId });
    }
    trackView(view, request);
  }

  if (request.state === 'delivering') {
    view.step = 'awaiting_broker';
    for (let wait = pollMs; ; wait = Math.min(wait * 2, MAX_BROKER_POLL_MS)) {
      const status = await partnerActivities.brokerRedemptionStatus({ issuerRequestId });
      if (status === 'completed') break;
      if (status === 'rejected') {
        await waitForResume(view, resumes, 'the broker rejected the redemption');
        wait = pollMs;
        continue;
      }
      await sleep(wait);
    }
    request = await partnerActivities.setPartnerRequestState({ issuerRequestId, state: 'completed', from: ['delivering'] });
  }
  trackView(view, request);
  view.step = 'done';
  return request.state === 'completed' ? 'completed' : 'pending';
}
