/**
 * The one rule of the long-lived workflows (chain watchers, hedging, reserves, market-data retention) for ending a
 * run: `runIsLong()` once the run reaches a limit of `LONG_LIVED_RUN_LIMITS` — events, bytes of history, age — or the
 * service suggests continuing as new; then `continueLongLivedAsNew(...)` starts the next run with the long-lived
 * workflow task timeout. History length and size come from the service with each workflow task (the real server and
 * the embedded one alike), so a replay sees the answer the run saw.
 */
import { makeContinueAsNewFunc, patched, workflowInfo, type Workflow } from '@temporalio/workflow';
import { LONG_LIVED_RUN_LIMITS, LONG_LIVED_WORKFLOW_TASK_TIMEOUT } from '../temporal/long-lived';

/** Whether the run should continue as new now. */
export function runIsLong(): boolean {
  const info = workflowInfo();
  if (info.continueAsNewSuggested) return true;
  // A run started before these limits is replayed as it ran (its history may be past them); once replayed, they hold.
  if (!patched('long-lived-limits')) return false;
  return (
    info.historyLength >= LONG_LIVED_RUN_LIMITS.events ||
    info.historySize >= LONG_LIVED_RUN_LIMITS.bytes ||
    Date.now() - info.runStartTime.getTime() >= LONG_LIVED_RUN_LIMITS.ageMs
  );
}

/** Continues as new with `args`, the next run having the long-lived workflow task timeout. */
export function continueLongLivedAsNew<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return makeContinueAsNewFunc<F>({ workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT })(...args);
}
