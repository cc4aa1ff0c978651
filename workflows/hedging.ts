/**
 * The hedging workflow of one underlying (`hedge-<UNDERLYING>`, started or woken by the chain watcher's outbox with
 * `hedgeOwed` when a final execution owes a hedge, and by the worker at start for whatever SQL says is owed). It
 * collects for a short window (`windowMs`), then nets everything owed into one batch with at most one order per side
 * (`openHedgeBatch`), works each order through to its end at the broker (`executeHedgeOrder`: placed under the
 * batch's client_order_id, waiting with backoff while the market or asset is paused, the broker does not trade or
 * does not answer), settles the batch and asks the reserves workflow to recompute. Obligations live in SQL, so the
 * signal carries nothing and a signal lost across continue-as-new loses nothing: every run starts by looking. Continues
 * as new by the rule of the long-lived workflows (workflows/long-lived.ts), between batches.
 */
import { condition, getExternalWorkflowHandle, log, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { HedgingActivities } from '../activities/hedging';
import { hedgeOwedSignal, hedgeStateQuery, reservesRecomputeSignal, type HedgeInput, type HedgeWorkflowState } from '../temporal/messages';
import { RESERVES_WORKFLOW_ID } from '../temporal/workflow-ids';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

const { openHedgeBatch, settleHedgeBatch } = proxyActivities<HedgingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Waits out holds and outages: retried at most a minute apart, so an order goes out soon after the next open. */
const { executeHedgeOrder } = proxyActivities<HedgingActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['HEDGE_ORDER_UNKNOWN'] },
});

export async function hedgeWorkflow(input: HedgeInput): Promise<void> {
  const view: HedgeWorkflowState = { underlying: input.underlying, status: 'idle', batchId: null, batches: 0, lastBatch: null };
  let owed = true;
  setHandler(hedgeStateQuery, () => ({ ...view }));
  setHandler(hedgeOwedSignal, () => {
    owed = true;
  });
  while (!runIsLong()) {
    view.status = 'idle';
    await condition(() => owed);
    owed = false;
    view.status = 'collecting';
    await sleep(input.windowMs);
    const batch = await openHedgeBatch({ underlying: input.underlying });
    if (!batch) continue;
    // More may have come while the batch was opened: look again after this one.
    owed = true;
    view.status = 'ordering';
    view.batchId = batch.batchId;
    for (const order of batch.orders) await executeHedgeOrder({ batchId: batch.batchId, side: order.side });
    const state = await settleHedgeBatch({ batchId: batch.batchId });
    if (state === 'review') log.error('a hedge order went to review', { batchId: batch.batchId });
    view.batches += 1;
    view.batchId = null;
    view.lastBatch = { batchId: batch.batchId, state, at: Date.now() };
    if (batch.orders.length > 0) {
      try {
        await getExternalWorkflowHandle(RESERVES_WORKFLOW_ID).signal(reservesRecomputeSignal);
      } catch (error) {
        log.warn('the reserves workflow could not be told of a fill', { error: (error as Error).message });
      }
    }
  }
  await continueLongLivedAsNew<typeof hedgeWorkflow>(input);
}
