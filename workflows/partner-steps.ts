/**
 * Workflow-side steps both partner workflows share: the activities with their retry policies, holding while the
 * market or the asset is paused, and waiting for an operator after a request went to review.
 */
import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PartnerActivities, PartnerRequestSnapshot } from '../activities/partner';
import { partnerResumeSignal, type PartnerRequestWorkflowState } from '../temporal/messages';

/** Steps that read and write SQL, or call the broker: retried with backoff until they succeed (the broker may be down for long). */
export const partnerActivities = proxyActivities<PartnerActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['PARTNER_REQUEST_NOT_FOUND'] },
});

/** The on-chain mint: waits for the transaction's block to be final (Ethereum: about 13 minutes), heartbeating meanwhile. */
export const partnerChainActivities = proxyActivities<PartnerActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['PARTNER_REQUEST_NOT_FOUND'] },
});

export const DEFAULT_POLL_INTERVAL_MS = 5_000;

/** The query view of a partner workflow, kept in step with its stored request. */
export function trackView(view: PartnerRequestWorkflowState, snapshot: PartnerRequestSnapshot): void {
  view.state = snapshot.state;
  view.reason = snapshot.reason;
  view.txHash = snapshot.txHash;
}

/** Resolves once no MARKET_PAUSED or ASSET_PAUSED holds the token, looking again every `pollMs`. */
export async function holdWhilePaused(view: PartnerRequestWorkflowState, tokenSymbol: string, pollMs: number): Promise<void> {
  const { step, reason } = view;
  for (;;) {
    const hold = await partnerActivities.partnerSettlementHold({ tokenSymbol });
    if (!hold) break;
    view.step = 'paused';
    view.reason = hold.message;
    await sleep(pollMs);
  }
  view.step = step;
  view.reason = reason;
}

/** Resume signals received (an operator fixed what held the request for review). */
export function resumeCounter(): { count: number } {
  const resumes = { count: 0 };
  setHandler(partnerResumeSignal, () => {
    resumes.count += 1;
  });
  return resumes;
}

/** Waits for the next resume signal after `seen` of them. */
export async function waitForResume(view: PartnerRequestWorkflowState, resumes: { count: number }, reason: string): Promise<void> {
  const seen = resumes.count;
  view.step = 'needs_review';
  view.reason = reason;
  await condition(() => resumes.count > seen);
}
