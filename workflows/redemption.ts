/**
 * One redemption: tokens a wallet burned through the issuer contract, named by the log that shows it
 * (`redemption-<chainId>-<txHash>-<logIndex>`, started by the chain watcher; a second start is refused by id). It
 * records the redemption as `pending`; delivering the shares back to the partner account follows from here.
 */
import { proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { RedemptionActivities } from '../activities/redemptions';
import { redemptionStateQuery, type RedemptionInput, type RedemptionWorkflowState } from '../temporal/messages';

const { recordPendingRedemption } = proxyActivities<RedemptionActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function redemptionWorkflow(input: RedemptionInput): Promise<RedemptionWorkflowState> {
  const view: RedemptionWorkflowState = { redemptionId: workflowInfo().workflowId, state: 'pending', symbol: null };
  setHandler(redemptionStateQuery, () => ({ ...view }));
  const recorded = await recordPendingRedemption({ ...input, redemptionId: view.redemptionId });
  view.symbol = recorded.symbol;
  return { ...view };
}
