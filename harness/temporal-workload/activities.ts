/** Activities of the Temporal workload (see workflows.ts beside it): the conformance suites and the workflow benchmark use them. */
import { activityInfo, ApplicationFailure, Context, heartbeat, sleep } from '@temporalio/activity';

export async function echo(message: string): Promise<string> {
  return message;
}

/** Fails until attempt `succeedOn`, then returns the attempt number. */
export async function flaky(_key: string, succeedOn: number): Promise<number> {
  const { attempt } = activityInfo();
  if (attempt < succeedOn) throw ApplicationFailure.create({ type: 'Transient', message: `attempt ${attempt} failed` });
  return attempt;
}

export async function alwaysFails(): Promise<string> {
  throw ApplicationFailure.create({ type: 'Broken', message: `attempt ${activityInfo().attempt} failed` });
}

/** Heartbeats once per step, resuming from the last heartbeat details of a previous attempt. */
export async function heartbeating(steps: number): Promise<number> {
  const start = (activityInfo().heartbeatDetails as number | undefined) ?? 0;
  for (let step = start; step < steps; step += 1) {
    heartbeat(step + 1);
    await sleep(20);
  }
  return steps;
}

/** Never heartbeats and never finishes before its heartbeat timeout. */
export async function stalls(): Promise<string> {
  await sleep(5_000);
  return 'finished';
}

/** Heartbeats until cancelled. */
export async function waitsForCancel(): Promise<string> {
  for (;;) {
    heartbeat();
    await Promise.race([sleep(100), Context.current().cancelled]);
  }
}
