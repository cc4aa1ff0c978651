/**
 * Prunes candles past their retention once an hour, for as long as the platform runs, and with them the webhook
 * deliveries finished more than WEBHOOK_RETENTION_DAYS ago (runs started before that replay without it). Started once
 * per deployment with the business id `market-data-retention`; continues as new after `prunesPerRun` prunes, or
 * sooner by the rule of the long-lived workflows (workflows/long-lived.ts).
 */
import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { MarketDataActivities } from '../activities/market-data-retention';
import type { WebhookActivities } from '../activities/webhooks';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

const { pruneExpiredCandles, pruneWebhookHistory } = proxyActivities<MarketDataActivities & WebhookActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export interface MarketDataRetentionInput {
  /** Time between two prunes, e.g. '1 hour'. */
  every: string;
  /** Prunes per run before continuing as new. */
  prunesPerRun: number;
}

export async function marketDataRetentionWorkflow(input: MarketDataRetentionInput): Promise<void> {
  for (let prune = 0; prune < input.prunesPerRun && !runIsLong(); prune += 1) {
    await pruneExpiredCandles();
    if (patched('webhook-retention')) await pruneWebhookHistory();
    await sleep(input.every);
  }
  await continueLongLivedAsNew<typeof marketDataRetentionWorkflow>(input);
}
