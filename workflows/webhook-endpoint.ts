/**
 * The delivery workflow of one webhook endpoint (`webhook-endpoint-<endpointId>`), started or woken by the worker's
 * wake-up loop (webhooks/wakeups.ts) when the endpoint has new deliveries. SQL holds what is due; this workflow only
 * runs rounds of `deliverDueWebhooks` and sleeps until the next attempt falls due or a signal says there is more. A
 * signal lost across continue-as-new loses nothing: every run starts with a round. It ends when the endpoint is
 * deleted, and continues as new by the rule of the long-lived workflows (workflows/long-lived.ts).
 */
import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { webhookDeliveriesDueSignal, type WebhookEndpointWorkflowInput } from '../temporal/messages';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

/** Heartbeats every 2 s: a worker killed mid-round is noticed after 10 s and the round runs again on another. */
const { deliverDueWebhooks } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** With nothing pending (or the endpoint disabled), it looks again this often even without a signal. */
const IDLE_MS = 60 * 60_000;

export async function webhookEndpointWorkflow(input: WebhookEndpointWorkflowInput): Promise<void> {
  let woken = false;
  setHandler(webhookDeliveriesDueSignal, () => {
    woken = true;
  });
  for (;;) {
    const round = await deliverDueWebhooks({ endpointId: input.endpointId });
    if (round.endpoint === 'deleted') return;
    if (runIsLong()) return continueLongLivedAsNew<typeof webhookEndpointWorkflow>(input);
    const waitMs = round.endpoint === 'disabled' || round.nextDueAt === null ? IDLE_MS : round.nextDueAt - Date.now();
    if (waitMs > 0) await condition(() => woken, waitMs);
    woken = false;
  }
}
