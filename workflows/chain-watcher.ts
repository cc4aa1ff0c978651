/**
 * The watcher of one EVM chain (`chain-watcher-<chainId>`, started by the worker): polls the chain through the
 * `scanChain` activity — which undoes reorganisations, records what it sees, makes final what the chain's finality
 * rule says is final and tells the workflows concerned — back to back while behind, once per poll interval when
 * caught up. The activity retries with backoff while the RPC or the database fails, so nothing is skipped.
 *
 * A reorganisation deeper than the watcher's window, or a log it cannot process, halts it: the activity records the
 * halt in SQL (`chain_cursors.status`, which `/ready` reports) and the workflow shows it in its state query, logs it,
 * and does nothing more on that chain until an operator sends `chainWatcherResume`. Continues as new by the rule of
 * the long-lived workflows (workflows/long-lived.ts), carrying what its state query shows (last scan, last
 * reorganisation, scans) into the next run.
 */
import { ActivityFailure, ApplicationFailure, condition, log, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { ChainWatcherActivities } from '../activities/chain-watcher';
import {
  chainFailureTypes,
  chainWatcherHaltTypes,
  chainWatcherResumeSignal,
  chainWatcherStateQuery,
  type ChainWatcherHalt,
  type ChainWatcherInput,
  type ChainWatcherResume,
  type ChainWatcherState,
} from '../temporal/messages';
import { continueLongLivedAsNew, runIsLong } from './long-lived';

const HALT_TYPES: ReadonlySet<string> = new Set(Object.values(chainWatcherHaltTypes));

const { scanChain, resumeChainWatcher } = proxyActivities<ChainWatcherActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: [chainFailureTypes.notDeployed, chainFailureTypes.unknownChain, chainFailureTypes.notConfigured, ...HALT_TYPES],
  },
});

/** The halt a failed scan reports, if it is one. */
function haltOf(error: unknown): ChainWatcherHalt | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || !cause.type || !HALT_TYPES.has(cause.type)) return undefined;
  return cause.details?.[0] as ChainWatcherHalt | undefined;
}

export async function chainWatcherWorkflow(input: ChainWatcherInput): Promise<void> {
  const { carried, ...settings } = input;
  const view: ChainWatcherState = { chain: input.chain, status: 'watching', lastScan: null, lastReorg: null, scans: 0, ...carried, halt: null };
  const resumes: ChainWatcherResume[] = [];
  setHandler(chainWatcherStateQuery, () => ({ ...view }));
  setHandler(chainWatcherResumeSignal, (resume) => {
    resumes.push(resume ?? {});
  });
  for (;;) {
    let scan;
    try {
      scan = await scanChain({ chain: input.chain });
    } catch (error) {
      const halt = haltOf(error);
      if (!halt) throw error;
      view.status = 'halted';
      view.halt = halt;
      log.error('chain watcher halted: waiting for an operator (chainWatcherResume)', { ...halt });
      // A resume sent before the halt was seen does not count: the operator must have seen this one.
      resumes.length = 0;
      await condition(() => resumes.length > 0);
      const resume = resumes.shift()!;
      log.warn('chain watcher resumed by an operator', { chain: input.chain, reanchor: resume.reanchor ?? false, fromBlock: resume.fromBlock });
      await resumeChainWatcher({ chain: input.chain, reanchor: resume.reanchor, fromBlock: resume.fromBlock });
      view.status = 'watching';
      view.halt = null;
      continue;
    }
    view.scans += 1;
    const at = Date.now();
    view.lastScan = {
      fromBlock: scan.fromBlock,
      toBlock: scan.toBlock,
      head: scan.head,
      finalBlock: scan.finalBlock,
      executions: scan.executions,
      redemptions: scan.redemptions,
      at,
    };
    if (scan.rewound) view.lastReorg = { ...scan.rewound, at };
    if (runIsLong()) await continueLongLivedAsNew<typeof chainWatcherWorkflow>({ ...settings, carried: { lastScan: view.lastScan, lastReorg: view.lastReorg, scans: view.scans } });
    if (scan.caughtUp) await sleep(input.pollIntervalMs);
  }
}
