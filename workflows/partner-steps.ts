/**
 * Workflow-side steps both partner workflows share: the activities with their retry policies, holding while the
 * market or the asset is paused, waiting for an operator after a request went to review, and the broker callback
 * with its refusals bounded.
 */
import { condition, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { PartnerActivities, PartnerRequestSnapshot } from '../activities/partner';
import type { PartnerRequestState } from '../db/queries/partner-requests';
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

/**
 * How often a callback the broker refuses (a 4xx other than 408, 409, 425, 429) is sent before the request waits for
 * an operator in `needs_review`, and the pause before the first resend (doubling: 1, 2, 4, 8 s). Other failures
 * (5xx, 408, 409, 425, 429, no answer) are retried by the activity with its backoff, without end.
 */
export const BROKER_CALLBACK_ATTEMPTS = 5;
const CALLBACK_RESEND_MS = 1_000;

/**
 * Calls the broker back for the request, which stands in `state` (`minted`, or `pending` for a redemption). After
 * `BROKER_CALLBACK_ATTEMPTS` refusals it is stored `needs_review` with the broker's last answer and waits for an
 * operator's resume, then goes back to `state` and calls again. Histories recorded before the bound retried every
 * failure without end (`patched('partner-callback-review')`).
 */
export async function callBrokerBack(
  view: PartnerRequestWorkflowState,
  resumes: { count: number },
  issuerRequestId: string,
  state: Extract<PartnerRequestState, 'minted' | 'pending'>,
): Promise<void> {
  if (!patched('partner-callback-review')) {
    await partnerActivities.callBrokerBack({ issuerRequestId });
    return;
  }
  for (;;) {
    let refusal: { status: number; answer: string } | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await partnerActivities.callBrokerBack({ issuerRequestId, reportRefusals: true });
      if (outcome?.outcome !== 'refused') return;
      refusal = outcome;
      if (attempt >= BROKER_CALLBACK_ATTEMPTS) break;
      await sleep(CALLBACK_RESEND_MS * 2 ** (attempt - 1));
    }
    const reason = `the broker refused the ${view.kind} callback ${BROKER_CALLBACK_ATTEMPTS} times, last with ${refusal.status}: ${refusal.answer}`;
    trackView(view, await partnerActivities.setPartnerRequestState({ issuerRequestId, state: 'needs_review', from: [state], reason }));
    await waitForResume(view, resumes, reason);
    const resumed = await partnerActivities.setPartnerRequestState({ issuerRequestId, state, from: ['needs_review'], reason: null });
    trackView(view, resumed);
    // An operator may have settled it otherwise meanwhile; only a request back in `state` is called back again.
    if (resumed.state !== state) return;
    view.step = 'calling_back';
  }
}
