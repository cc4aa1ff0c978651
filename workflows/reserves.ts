/**
 * The proof-of-reserves workflow (`reserves`, started by the worker): recomputes the reserves of every asset
 * (`computeReserves`: supply on chain at the final blocks, shares at the broker, what is in flight; a snapshot stored,
 * minting paused for an asset short beyond the tolerance and resumed once covered) every `intervalMs`, and at once
 * when a hedging workflow reports a fill (`reservesRecompute`). Continues as new by the rule of the long-lived
 * workflows (workflows/long-lived.ts), its state carried to the next run.
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ReservesActivities } from '../activities/reserves';
import { reservesRecomputeSignal, reservesStateQuery, type ReservesInput, type ReservesWorkflowState } from '../temporal/messages';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

const { computeReserves } = proxyActivities<ReservesActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function reservesWorkflow(input: ReservesInput, state?: ReservesWorkflowState): Promise<void> {
  const view: ReservesWorkflowState = state ?? { computations: 0, last: null };
  let asked = false;
  setHandler(reservesStateQuery, () => ({ ...view }));
  setHandler(reservesRecomputeSignal, () => {
    asked = true;
  });
  while (!runIsLong()) {
    asked = false;
    const computed = await computeReserves();
    view.computations += 1;
    view.last = { at: computed.takenAt, short: computed.short, paused: computed.paused, resumed: computed.resumed };
    await condition(() => asked, input.intervalMs);
  }
  await continueLongLivedAsNew<typeof reservesWorkflow>(input, view);
}
