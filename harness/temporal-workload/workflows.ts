/**
 * A workload for the embedded Temporal service, used by its conformance and restart suites (test/temporal) and the
 * workflow benchmark (bench/workflows.ts). Each workflow exercises one part of the
 * service's semantics through the real SDK.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  ChildWorkflowFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  executeChild,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type * as activities from './activities';

export const addSignal = defineSignal<[number]>('add');
export const finishSignal = defineSignal('finish');
export const totalQuery = defineQuery<number>('total');
export const stateQuery = defineQuery<string>('state');

const { echo } = proxyActivities<typeof activities>({ startToCloseTimeout: '10s' });
const { flaky } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '10ms', backoffCoefficient: 1, maximumAttempts: 5 },
});
const { alwaysFails } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '10ms', maximumAttempts: 3 },
});
const { alwaysFails: failsSlowly } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1 hour', maximumAttempts: 3 },
});
const { flaky: flakyWithBackoff } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '400ms', backoffCoefficient: 1.5, maximumAttempts: 10 },
});
const { heartbeating, stalls } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30s',
  heartbeatTimeout: '1s',
  retry: { initialInterval: '10ms', maximumAttempts: 2 },
});
const { waitsForCancel } = proxyActivities<typeof activities>({
  startToCloseTimeout: '30s',
  heartbeatTimeout: '2s',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
});

/** Start → one activity → complete (also the benchmark's workflow shape). */
export async function greetWorkflow(name: string): Promise<string> {
  return await echo(`hello ${name}`);
}

/** Retries an activity that fails until its third attempt; returns the attempt that succeeded. */
export async function retryWorkflow(key: string): Promise<number> {
  return await flaky(key, 3);
}

/** Runs an activity whose every attempt fails; surfaces the failure to the caller. */
export async function failingActivityWorkflow(): Promise<string> {
  return await alwaysFails();
}

/** Runs an activity that fails and waits an hour between attempts (for inspecting pending activities). */
export async function slowRetryWorkflow(): Promise<string> {
  return await failsSlowly();
}

/** Sums `add` signals until `finish`; `total` query reads the running sum. */
export async function accumulatorWorkflow(): Promise<number> {
  let total = 0;
  let finished = false;
  setHandler(addSignal, (value) => {
    total += value;
  });
  setHandler(finishSignal, () => {
    finished = true;
  });
  setHandler(totalQuery, () => total);
  await condition(() => finished);
  return total;
}

/** Waits for `finish` at most `timeoutMs`; returns whether it arrived in time. */
export async function conditionTimeoutWorkflow(timeoutMs: number): Promise<boolean> {
  let finished = false;
  setHandler(finishSignal, () => {
    finished = true;
  });
  return await condition(() => finished, timeoutMs);
}

/** Sleeps for the given duration then returns. */
export async function sleepWorkflow(durationMs: number): Promise<string> {
  await sleep(durationMs);
  return 'woke';
}

/** Waits to be cancelled; on cancellation, runs a cleanup activity and reports it. */
export async function cancellableWorkflow(): Promise<string> {
  let state = 'waiting';
  setHandler(stateQuery, () => state);
  try {
    await CancellationScope.cancellable(() => sleep('1 day'));
    return 'not cancelled';
  } catch (error) {
    if (!isCancellation(error)) throw error;
    state = 'cleaning up';
    await CancellationScope.nonCancellable(() => echo('cleanup'));
    throw error;
  }
}

/** Continues as new until `remaining` reaches 0; returns the run count. */
export async function countdownWorkflow(remaining: number, runs = 1): Promise<number> {
  if (remaining > 0) await continueAsNew<typeof countdownWorkflow>(remaining - 1, runs + 1);
  return runs;
}

/** Starts a child per name and collects their results. */
export async function parentWorkflow(names: string[]): Promise<string[]> {
  return await Promise.all(names.map((name) => executeChild(greetWorkflow, { args: [name], workflowId: `${workflowInfo().workflowId}-child-${name}` })));
}

/** Starts a child that fails; describes the failure that reached the parent. */
export async function failingChildWorkflow(): Promise<string> {
  try {
    await executeChild(failingActivityWorkflow, { workflowId: `${workflowInfo().workflowId}-child` });
    return 'child succeeded';
  } catch (error) {
    if (!(error instanceof ChildWorkflowFailure)) throw error;
    return `child failed: ${(error.cause?.cause as Error | undefined)?.message ?? 'unknown'}`;
  }
}

/** Runs an activity that heartbeats its progress; returns the activity's result. */
export async function heartbeatWorkflow(steps: number): Promise<number> {
  return await heartbeating(steps);
}

/** Runs an activity that stops heartbeating; the failure reaches the workflow. */
export async function heartbeatTimeoutWorkflow(): Promise<string> {
  return await stalls();
}

/** Starts a long activity, then cancels it; returns how the activity ended. */
export async function activityCancelWorkflow(): Promise<string> {
  const scope = new CancellationScope();
  const promise = scope.run(() => waitsForCancel());
  await sleep(100);
  scope.cancel();
  try {
    await promise;
    return 'activity completed';
  } catch (error) {
    return isCancellation(error) ? 'activity cancelled' : `activity failed: ${(error as Error).message}`;
  }
}

/** Waits for the finish signal (no activities: a hand-driven worker can complete its tasks with no commands). */
export async function waitForFinishWorkflow(): Promise<void> {
  let finished = false;
  setHandler(finishSignal, () => {
    finished = true;
  });
  await condition(() => finished);
}

/** Throws a plain Error: the workflow task fails and is retried rather than failing the workflow. */
export async function throwingWorkflow(): Promise<void> {
  throw new Error('bug in workflow code');
}

/** Fails the workflow with a non-retryable business error. */
export async function businessFailureWorkflow(): Promise<void> {
  throw ApplicationFailure.create({ type: 'InsufficientFunds', message: 'not enough funds', nonRetryable: true });
}

/** Retries an activity with growing backoff until attempt `succeedOn`; returns the attempt that succeeded. */
export async function backoffRetryWorkflow(key: string, succeedOn: number): Promise<number> {
  return await flakyWithBackoff(key, succeedOn);
}

/** Runs a child that sleeps `sleepMs`, and reports its result. */
export async function sleepyParentWorkflow(sleepMs: number): Promise<string> {
  const result = await executeChild(sleepWorkflow, { args: [sleepMs], workflowId: `${workflowInfo().workflowId}-child` });
  return `child ${result}`;
}

/** Sleeps `sleepMs`, then continues as new until `remaining` reaches 0; returns the run count. */
export async function sleepyCountdownWorkflow(remaining: number, sleepMs: number, runs = 1): Promise<number> {
  await sleep(sleepMs);
  if (remaining > 0) await continueAsNew<typeof sleepyCountdownWorkflow>(remaining - 1, sleepMs, runs + 1);
  return runs;
}

export const workSignal = defineSignal<[number]>('work');
export const workDoneQuery = defineQuery<number>('workDone');

/** `rounds` rounds of deterministic arithmetic over `checksum`: CPU spent the same on every machine's replay. */
export function workRounds(checksum: number, rounds: number): number {
  let value = checksum;
  for (let round = 0; round < rounds; round += 1) value = (value * 31 + round) % 1_000_003;
  return value;
}

/**
 * Works `rounds` rounds for each `work` signal until `finish`, returning its checksum: a history whose replay costs CPU
 * in proportion to the work signalled — a long-lived workflow's long history, slow to replay on a worker just started.
 */
export async function heavyReplayWorkflow(): Promise<number> {
  let checksum = 0;
  let done = 0;
  let finished = false;
  setHandler(workDoneQuery, () => done);
  setHandler(workSignal, (rounds) => {
    checksum = workRounds(checksum, rounds);
    done += 1;
  });
  setHandler(finishSignal, () => {
    finished = true;
  });
  await condition(() => finished);
  return checksum;
}
