/**
 * A worker restarted on a long history while the machine is loaded (issue 33): the history's replay takes longer than
 * the workflow task timeout (1 s here; the replay several seconds of CPU, with two CPU burners running), so the first
 * attempts time out and their completions are refused. The service gives each attempt after the third more time, as
 * the Temporal server does, so the workflow goes on; with the same timeout for every attempt it never would. Runs
 * against the embedded service (or TEMPORAL_ADDRESS's server, which does the same).
 */
import { temporal } from '@temporalio/proto';
import * as activities from '../../harness/temporal-workload/activities';
import { finishSignal, heavyReplayWorkflow, workDoneQuery, workRounds, workSignal } from '../../harness/temporal-workload/workflows';
import { startProcess, type TestProcess } from '../../harness/processes';
import { eventually } from '../support/eventually';
import { startTestEnvironment, type TestEnvironment } from './environment';

const EventType = temporal.api.enums.v1.EventType;

/** Work signalled, one signal at a time: ~0.1 s each when it runs, several seconds replayed at once on a loaded machine. */
const SIGNALS = 50;
const ROUNDS = 10_000_000;

let env: TestEnvironment;
const burners: TestProcess[] = [];

beforeAll(async () => {
  env = await startTestEnvironment();
});

afterAll(async () => {
  await Promise.all(burners.map((burner) => burner.stop()));
  await env?.teardown();
});

test('a worker restarted on a history slower to replay than the workflow task timeout, on a loaded machine, takes the workflow on', async () => {
  const handle = await env.client.workflow.start(heavyReplayWorkflow, { taskQueue: env.taskQueue, workflowId: `heavy-replay-${Date.now()}`, workflowTaskTimeout: '1s' });
  let expected = 0;
  for (let signal = 1; signal <= SIGNALS; signal += 1) {
    await handle.signal(workSignal, ROUNDS);
    expected = workRounds(expected, ROUNDS);
    // One signal per workflow task: each stays well within the timeout while the worker has the workflow cached.
    await eventually(async () => expect(await handle.query(workDoneQuery)).toBe(signal), 30_000);
  }

  // A new worker (no cache): its next task replays the whole history, on a machine two burners keep busy.
  await env.stopWorker();
  for (let burner = 0; burner < 2; burner += 1) burners.push(startProcess(`cpu-burner-${burner}`, 'harness/cpu-burner.ts', [], process.env));
  try {
    await env.startWorker(activities);
    await handle.signal(finishSignal);
    await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'), 240_000);
    expect(await handle.result()).toBe(expected);
  } finally {
    await Promise.all(burners.splice(0).map((burner) => burner.stop()));
  }
  // The replay did outlast the timeout: the first attempt after the restart timed out before one was taken.
  const events = (await handle.fetchHistory()).events ?? [];
  expect(events.some((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toBe(true);
}, 300_000);
