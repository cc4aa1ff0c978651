/**
 * The watcher of one EVM chain (`chain-watcher-<chainId>`, started by the worker): scans the chain in bounded
 * block ranges through the `scanChain` activity — which hands executions and redemptions on and moves the cursor
 * kept in PostgreSQL — back to back while behind, once per poll interval when caught up. The activity retries with
 * backoff while the RPC fails, so nothing is skipped. Continues as new before its history grows large.
 */
import { continueAsNew, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { ChainWatcherActivities } from '../activities/chain-watcher';
import { chainWatcherStateQuery, type ChainWatcherInput, type ChainWatcherState } from '../temporal/messages';

const { scanChain } = proxyActivities<ChainWatcherActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', nonRetryableErrorTypes: ['CHAIN_NOT_DEPLOYED', 'UNKNOWN_CHAIN', 'CHAINS_NOT_CONFIGURED'] },
});

/** Scans per run, whatever the server suggests: a run's history stays well below the limits. */
const SCANS_PER_RUN = 1_000;

export async function chainWatcherWorkflow(input: ChainWatcherInput): Promise<void> {
  const view: ChainWatcherState = { chain: input.chain, lastScan: null, scans: 0 };
  setHandler(chainWatcherStateQuery, () => ({ ...view }));
  for (;;) {
    const scan = await scanChain({ chain: input.chain });
    view.scans += 1;
    view.lastScan = {
      fromBlock: scan.fromBlock,
      toBlock: scan.toBlock,
      head: scan.head,
      executions: scan.executions,
      redemptions: scan.redemptions,
      at: Date.now(),
    };
    if (view.scans >= SCANS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof chainWatcherWorkflow>(input);
    }
    if (scan.caughtUp) await sleep(input.pollIntervalMs);
  }
}
