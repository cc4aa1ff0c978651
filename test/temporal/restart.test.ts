/**
 * Restart suite: the embedded Temporal service in its durable mode is stopped in the middle of six workflows
 * — a timer, a wait for a signal, an activity retrying with backoff, a child workflow, continue-as-new and a
 * query target — and started again on the same database. Each must finish with the result it has without a
 * restart, and its history must replay on the SDK. Once with an orderly stop of the in-process service, once
 * with SIGKILL of a service process. The worker keeps running across the restart, as it would against a
 * real cluster. Then, by hand: tasks handed out before a restart are handed out again with their attempts
 * counted, and request-id dedupe and workflow-id policies hold across it.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { activityInfo } from '@temporalio/activity';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { runWorker, type RunningSdkWorker } from '../../worker/run-worker';
import Long from 'long';
import { startTemporalServer, type TemporalServer } from '../../temporal-server';
import * as activities from '../../harness/temporal-workload/activities';
import { createTemporalTestDatabase, type TemporalTestDatabase } from './database';
import { eventually, testWorkflowBundle } from './environment';
import { freePort } from '../../config/free-port';
import { type ServiceProcess, startServiceProcess } from './service-process';
import {
  accumulatorWorkflow,
  addSignal,
  backoffRetryWorkflow,
  finishSignal,
  sleepWorkflow,
  sleepyCountdownWorkflow,
  sleepyParentWorkflow,
  totalQuery,
  waitForFinishWorkflow,
} from '../../harness/temporal-workload/workflows';

const EventType = temporal.api.enums.v1.EventType;

let database: TemporalTestDatabase;
let port: number;
let worker: RunningSdkWorker;
let taskQueue: string;
/** Attempts of the `flaky` activity the worker ran, by key. */
const attemptsRun = new Map<string, number[]>();

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  database = await createTemporalTestDatabase('restart');
  port = await freePort();
});

afterAll(async () => {
  await database?.drop();
});

/** Starts a worker (in this process) over the test workflows, with a `flaky` that records its attempts. */
async function startWorker(address: string): Promise<void> {
  taskQueue = `restart-${Date.now()}`;
  worker = await runWorker({
    address,
    namespace: 'default',
    taskQueue,
    workflows: { workflowBundle: { code: await testWorkflowBundle() } },
    compress: false,
    activities: {
      ...activities,
      flaky: async (key: string, succeedOn: number) => {
        attemptsRun.set(key, [...(attemptsRun.get(key) ?? []), activityInfo().attempt]);
        return await activities.flaky(key, succeedOn);
      },
    },
  });
}

async function stopWorker(): Promise<void> {
  await worker.stop();
}

async function eventTypes(handle: WorkflowHandle): Promise<number[]> {
  return ((await handle.fetchHistory()).events ?? []).map((event) => event.eventType ?? 0);
}

async function hasEvent(handle: WorkflowHandle, type: number): Promise<void> {
  if (!(await eventTypes(handle)).includes(type)) throw new Error(`no event ${EventType[type]} yet in ${handle.workflowId}`);
}

const eventMs = (event: temporal.api.history.v1.IHistoryEvent | undefined) =>
  Number(event?.eventTime?.seconds ?? 0) * 1000 + Math.floor((event?.eventTime?.nanos ?? 0) / 1e6);

/**
 * Starts the six workflows, waits until each is in the middle of what it does, calls `restart` (which stops
 * the service and starts it again on the same database and port), and checks that each finishes as it would
 * have without the restart, with a history that replays.
 */
async function runAcrossRestart(client: Client, name: string, restart: () => Promise<void>): Promise<void> {
  const id = (kind: string) => `${name}-${kind}-${Date.now()}`;
  const retryKey = id('retry');
  const timer = await client.workflow.start(sleepWorkflow, { taskQueue, workflowId: id('timer'), args: [2500] });
  const signalled = await client.workflow.start(accumulatorWorkflow, { taskQueue, workflowId: id('signal') });
  const retrying = await client.workflow.start(backoffRetryWorkflow, { taskQueue, workflowId: id('retry'), args: [retryKey, 6] });
  const parent = await client.workflow.start(sleepyParentWorkflow, { taskQueue, workflowId: id('child'), args: [3000] });
  const chain = await client.workflow.start(sleepyCountdownWorkflow, { taskQueue, workflowId: id('continue'), args: [2, 1500] });
  const queried = await client.workflow.start(accumulatorWorkflow, { taskQueue, workflowId: id('query') });

  await signalled.signal(addSignal, 2);
  await queried.signal(addSignal, 5);
  await eventually(() => hasEvent(timer, EventType.EVENT_TYPE_TIMER_STARTED));
  await eventually(() => hasEvent(signalled, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED));
  await eventually(async () => expect((attemptsRun.get(retryKey) ?? []).length).toBeGreaterThanOrEqual(2));
  await eventually(() => hasEvent(client.workflow.getHandle(`${parent.workflowId}-child`), EventType.EVENT_TYPE_TIMER_STARTED));
  await eventually(async () => expect(await queried.query(totalQuery)).toBe(5));
  const timerStartedAt = eventMs((await timer.fetchHistory()).events?.find((event) => event.eventType === EventType.EVENT_TYPE_TIMER_STARTED));
  const firstRunOfChain = chain.firstExecutionRunId;

  await restart();
  const restartedAt = Date.now();

  expect(await queried.query(totalQuery)).toBe(5);
  await signalled.signal(addSignal, 3);
  await signalled.signal(finishSignal);
  await queried.signal(addSignal, 1);
  expect(await queried.query(totalQuery)).toBe(6);
  await queried.signal(finishSignal);

  expect(await timer.result()).toBe('woke');
  expect(await signalled.result()).toBe(5);
  expect(await retrying.result()).toBe(6);
  expect(await parent.result()).toBe('child woke');
  expect(await chain.result()).toBe(3);
  expect(await queried.result()).toBe(6);

  // The timer fell due while the service was down: it fired when the service came back, not a timer later.
  const fired = eventMs((await timer.fetchHistory()).events?.find((event) => event.eventType === EventType.EVENT_TYPE_TIMER_FIRED));
  expect(fired).toBeGreaterThanOrEqual(timerStartedAt + 2500);
  expect(fired - restartedAt).toBeLessThan(2000);
  // Each attempt ran at most once, in order: the attempt count survived the restart.
  const attempts = attemptsRun.get(retryKey) ?? [];
  expect(attempts).toEqual([...new Set(attempts)].sort((a, b) => a - b));
  expect(attempts[attempts.length - 1]).toBe(6);
  // Continue-as-new: the first run of the chain is still there, and closed as CONTINUED_AS_NEW.
  expect((await client.workflow.getHandle(chain.workflowId, firstRunOfChain).describe()).status.name).toBe('CONTINUED_AS_NEW');

  const code = await testWorkflowBundle();
  for (const handle of [timer, signalled, retrying, parent, client.workflow.getHandle(`${parent.workflowId}-child`), chain, queried]) {
    const history = await handle.fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, history, handle.workflowId)).resolves.toBeUndefined();
  }
}

test('an orderly stop and start: every kind of workflow carries on where it was', async () => {
  let server: TemporalServer = await startTemporalServer({ databaseUrl: database.url, port });
  const connection = await Connection.connect({ address: server.address });
  await startWorker(server.address);
  try {
    const client = new Client({ connection });
    await runAcrossRestart(client, 'stop', async () => {
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      server = await startTemporalServer({ databaseUrl: database.url, port });
      expect(server.restored.openRuns).toBeGreaterThanOrEqual(6);
    });
  } finally {
    await stopWorker();
    await connection.close();
    await server.stop();
  }
});

test('SIGKILL of the service process: every kind of workflow carries on after a start on the same database', async () => {
  let service: ServiceProcess | undefined = await startServiceProcess(port, database.url);
  const pids = [service.pid];
  const connection = await Connection.connect({ address: service.address });
  await startWorker(service.address);
  try {
    const client = new Client({ connection });
    await runAcrossRestart(client, 'kill', async () => {
      await service!.kill('SIGKILL');
      service = undefined;
      await new Promise((resolve) => setTimeout(resolve, 3000));
      service = await startServiceProcess(port, database.url);
      pids.push(service.pid);
      expect(service.output()).toMatch(/restored \d+ runs \(\d+ open\)/);
    });
  } finally {
    await stopWorker();
    await connection.close();
    await service?.kill('SIGTERM');
    // Whatever happened above, no service process outlives the test.
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});

describe('across an orderly stop and start, by hand (no worker on the task queue)', () => {
  let server: TemporalServer;
  let connection: Connection;
  let client: Client;
  const service = () => connection.workflowService;

  beforeAll(async () => {
    server = await startTemporalServer({ databaseUrl: database.url, port });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
  });

  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  async function restartService(): Promise<void> {
    await server.stop();
    server = await startTemporalServer({ databaseUrl: database.url, port });
  }

  const notFound = { code: 5 };

  test('a workflow task and an activity task handed out before the restart are handed out again, their attempts counted', async () => {
    const handTaskQueue = `hand-${Date.now()}`;
    const handle = await client.workflow.start(waitForFinishWorkflow, { taskQueue: handTaskQueue, workflowId: `hand-${Date.now()}` });
    const poll = () => service().pollWorkflowTaskQueue({ namespace: 'default', taskQueue: { name: handTaskQueue }, identity: 'hand' });
    const pollActivity = () => service().pollActivityTaskQueue({ namespace: 'default', taskQueue: { name: handTaskQueue }, identity: 'hand' });

    const first = await poll();
    expect(first.attempt).toBe(1);
    await restartService();
    const second = await poll();
    expect(second.workflowExecution?.runId).toBe(handle.firstExecutionRunId);
    expect(second.attempt).toBe(2);
    expect((second.history?.events ?? []).map((event) => event.eventType)).toContain(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
    await expect(service().respondWorkflowTaskCompleted({ namespace: 'default', taskToken: first.taskToken, identity: 'hand' })).rejects.toMatchObject(notFound);

    await service().respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: second.taskToken,
      identity: 'hand',
      commands: [
        {
          commandType: temporal.api.enums.v1.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: 'by-hand',
            activityType: { name: 'echo' },
            taskQueue: { name: handTaskQueue },
            startToCloseTimeout: { seconds: Long.fromNumber(30) },
            retryPolicy: { initialInterval: { nanos: 100_000_000 }, backoffCoefficient: 1, maximumAttempts: 5 },
          },
        },
      ],
    });
    const firstAttempt = await pollActivity();
    expect(firstAttempt.attempt).toBe(1);
    await restartService();
    const secondAttempt = await pollActivity();
    expect(secondAttempt.activityId).toBe('by-hand');
    expect(secondAttempt.attempt).toBe(2);
    await expect(service().respondActivityTaskCompleted({ namespace: 'default', taskToken: firstAttempt.taskToken, identity: 'hand' })).rejects.toMatchObject(notFound);
    await service().respondActivityTaskCompleted({ namespace: 'default', taskToken: secondAttempt.taskToken, identity: 'hand' });

    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.find((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED);
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    expect(events.map((event) => event.eventType)).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
    await handle.terminate('test done');
  });

  test('request-id dedupe and workflow-id policies hold after the restart', async () => {
    const workflowId = `policies-${Date.now()}`;
    const requestId = randomUUID();
    const start = (request: Partial<temporal.api.workflowservice.v1.IStartWorkflowExecutionRequest>) =>
      service().startWorkflowExecution({
        namespace: 'default',
        workflowId,
        workflowType: { name: 'waitForFinishWorkflow' },
        taskQueue: { name: `policies-${Date.now()}` },
        identity: 'hand',
        requestId,
        ...request,
      });
    const started = await start({});
    expect(started.started).toBe(true);
    const handle = client.workflow.getHandle(workflowId);
    await handle.signal(addSignal, 1);
    await restartService();

    // The same start again (a retry): the same run, not a second one.
    const again = await start({});
    expect(again.runId).toBe(started.runId);
    expect(again.started).toBe(false);
    // Another start of the running workflow id: refused.
    await expect(start({ requestId: randomUUID() })).rejects.toMatchObject({ code: 6 });
    // USE_EXISTING hands back the running run.
    const existing = await start({ requestId: randomUUID(), workflowIdConflictPolicy: temporal.api.enums.v1.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING });
    expect(existing.runId).toBe(started.runId);

    await handle.terminate('closing for the reuse policy');
    await restartService();
    await expect(
      start({ requestId: randomUUID(), workflowIdReusePolicy: temporal.api.enums.v1.WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE }),
    ).rejects.toMatchObject({ code: 6 });
    const reused = await start({ requestId: randomUUID() });
    expect(reused.started).toBe(true);
    expect(reused.runId).not.toBe(started.runId);
    await client.workflow.getHandle(workflowId).terminate('test done');
  });
});
