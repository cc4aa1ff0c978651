/**
 * The Solana nonce pool's keeper (`solana-nonce-pool`, started by a worker with Solana configured): every
 * `checkIntervalMs` a refill (activities/solana-nonce-pool.ts: registers what exists on chain, grows the pool when it
 * is short), every `sweepIntervalMs` a sweep of the accounts left held past their attestation's expiry. A failed
 * refill or sweep (the ledger unreachable) is tried again at the next check; the pool's state is in the metrics.
 * Continues as new by the rule of the long-lived workflows (workflows/long-lived.ts).
 */
import { log, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { SolanaNoncePoolActivities } from '../activities/solana-nonce-pool';
import { solanaNoncePoolStateQuery, type SolanaNoncePoolInput, type SolanaNoncePoolState } from '../temporal/messages';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

const { refillSolanaNoncePool, sweepStuckSolanaNonces } = proxyActivities<SolanaNoncePoolActivities>({
  // A refill waits for the accounts it made to be final (two minutes at most).
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});

export async function solanaNoncePoolWorkflow(input: SolanaNoncePoolInput, state?: SolanaNoncePoolState): Promise<void> {
  const view: SolanaNoncePoolState = state ?? { nextSweepAt: Date.now(), lastRefill: null };
  setHandler(solanaNoncePoolStateQuery, () => ({ ...view }));
  while (!runIsLong()) {
    try {
      view.lastRefill = (await refillSolanaNoncePool()).outcome;
    } catch (error) {
      view.lastRefill = 'failed';
      log.warn('Solana nonce pool refill failed; tried again at the next check', { error: String(error) });
    }
    if (Date.now() >= view.nextSweepAt) {
      try {
        await sweepStuckSolanaNonces({ pastExpiryMs: input.sweepPastExpiryMs });
      } catch (error) {
        log.warn('Solana nonce pool sweep failed; tried again at the next sweep', { error: String(error) });
      }
      view.nextSweepAt = Date.now() + input.sweepIntervalMs;
    }
    await sleep(input.checkIntervalMs);
  }
  await continueLongLivedAsNew<typeof solanaNoncePoolWorkflow>(input, view);
}
