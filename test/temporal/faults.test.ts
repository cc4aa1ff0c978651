/**
 * Faults: PostgreSQL restarted under a running durable Temporal service. Calls made while it is down fail
 * with UNAVAILABLE (the SDK client retries them); the service reconnects once it is back and stores what it
 * had; nothing is lost and nothing is applied twice — checked on the histories a new service start reads back
 * from the database. An activity task a poll took while PostgreSQL was down (its start could not be stored, the poll
 * answered UNAVAILABLE) goes back to its queue: the next poll gets the same attempt, rather than it waiting out its
 * start-to-close timeout as a lost attempt; a workflow task so taken is offered again at once, its attempt counted. The test runs its own embedded PostgreSQL (postgres-process.ts) so that it can stop and
 * start it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { runWorker } from '../../worker/run-worker';
import { startTemporalServer, type TemporalServer } from '../../temporal-server';
import * as activities from '../../harness/temporal-workload/activities';
import { testWorkflowBundle } from './environment';
import { accumulatorWorkflow, addSignal, finishSignal, greetWorkflow, waitForFinishWorkflow } from '../../harness/temporal-workload/workflows';

const EventType = temporal.api.enums.v1.EventType;

let postgresProcess: ChildProcess;
let databaseUrl: string;

/** Sends a command to the PostgreSQL process and waits for its answer. */
function postgres(command: 'stop' | 'start' | 'exit'): Promise<void> {
  return new Promise((resolve) => {
    postgresProcess.once('message', () => resolve());
    postgresProcess.once('exit', () => resolve());
    postgresProcess.send(command);
  });
}

beforeAll(async () => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  postgresProcess = fork(path.join(__dirname, 'postgres-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  databaseUrl = await new Promise<string>((resolve, reject) => {
    postgresProcess.once('message', (url) => resolve(String(url)));
    postgresProcess.once('exit', (code) => reject(new Error(`PostgreSQL process exited with ${code}`)));
  });
}, 60_000);

afterAll(async () => {
  if (!postgresProcess) return;
  await Promise.race([postgres('exit'), new Promise((resolve) => setTimeout(resolve, 20_000))]);
  // Whatever happened, the PostgreSQL process does not outlive the test.
  if (postgresProcess.exitCode === null && postgresProcess.signalCode === null) process.kill(postgresProcess.pid!, 'SIGKILL');
}, 30_000);

test('PostgreSQL restarted under the service: calls in flight fail UNAVAILABLE, are retried, and land exactly once', async () => {
  let server: TemporalServer = await startTemporalServer({ databaseUrl });
  const taskQueue = `faults-${Date.now()}`;
  const worker = await runWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    workflows: { workflowBundle: { code: await testWorkflowBundle() } },
    activities,
    compress: false,
  });
  const connection = await Connection.connect({ address: server.address });
  // The same service without the client's retries, to see what a single call is answered.
  const bare = await Connection.connect({ address: server.address, interceptors: [] });
  const client = new Client({ connection });
  try {
    const accumulator = await client.workflow.start(accumulatorWorkflow, { taskQueue, workflowId: `faults-sum-${Date.now()}` });
    let sent = 0;
    for (let value = 1; value <= 5; value += 1) {
      await accumulator.signal(addSignal, value);
      sent += value;
    }

    await postgres('stop');
    // A signal while PostgreSQL is down: applied in memory but not stored, so answered UNAVAILABLE.
    const lostSignal = {
      namespace: 'default',
      workflowExecution: { workflowId: accumulator.workflowId },
      signalName: 'add',
      input: { payloads: [defaultPayloadConverter.toPayload(100)] },
      identity: 'faults-test',
      requestId: randomUUID(),
    };
    await expect(bare.workflowService.signalWorkflowExecution(lostSignal)).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    // Calls through the SDK client retry UNAVAILABLE: they finish once PostgreSQL is back.
    const greeting = client.workflow.execute(greetWorkflow, { taskQueue, workflowId: `faults-greet-${Date.now()}`, args: ['outage'] });
    const signals = (async () => {
      for (let value = 10; value <= 12; value += 1) {
        await accumulator.signal(addSignal, value);
        sent += value;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await postgres('start');

    await signals;
    // The caller of the UNAVAILABLE signal retries it with the same request id: it counts once.
    await bare.workflowService.signalWorkflowExecution(lostSignal);
    sent += 100;
    expect(await greeting).toBe('hello outage');
    await accumulator.signal(finishSignal);
    expect(await accumulator.result()).toBe(sent);

    // What is stored: a new service reads the histories back from the database.
    await server.stop();
    server = await startTemporalServer({ databaseUrl, port: Number(server.address.split(':')[1]) });
    const stored = (await accumulator.fetchHistory()).events ?? [];
    const values = stored
      .filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && event.workflowExecutionSignaledEventAttributes?.signalName === 'add')
      .map((event) => defaultPayloadConverter.fromPayload(event.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!));
    // Each signal once, in the order the service took them (the UNAVAILABLE one when it was first sent).
    expect(values).toEqual([1, 2, 3, 4, 5, 100, 10, 11, 12]);
    expect(stored[stored.length - 1]?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
    const eventIds = stored.map((event) => Number(event.eventId));
    expect(eventIds).toEqual(eventIds.map((_, index) => index + 1));
  } finally {
    await worker.stop();
    await connection.close();
    await bare.close();
    await server.stop();
  }
});

interface HandDriven {
  connection: Connection;
  /** The same service without the client's retries: a poll's own answer. */
  bare: Connection;
  client: Client;
  taskQueue: string;
  poll: { namespace: string; taskQueue: { name: string }; identity: string };
}

/** A durable service of its own driven by hand (no worker on the task queue), whose polls wait 5 s at most. */
async function byHand(work: (hand: HandDriven) => Promise<void>): Promise<void> {
  const server = await startTemporalServer({ databaseUrl, pollTimeoutMs: 5_000 });
  const connection = await Connection.connect({ address: server.address });
  const bare = await Connection.connect({ address: server.address, interceptors: [] });
  const taskQueue = `faults-hand-${Date.now()}`;
  try {
    await work({ connection, bare, client: new Client({ connection }), taskQueue, poll: { namespace: 'default', taskQueue: { name: taskQueue }, identity: 'hand' } });
  } finally {
    await connection.close();
    await bare.close();
    await server.stop();
  }
}

/** Runs `poll` with PostgreSQL stopped, expecting UNAVAILABLE, and starts PostgreSQL again whatever happens. */
async function pollWithPostgresDown(poll: () => Promise<unknown>): Promise<void> {
  await postgres('stop');
  try {
    await expect(poll()).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
  } finally {
    await postgres('start');
  }
}

test('an activity task polled while PostgreSQL is down goes back to its queue: the next poll gets the same attempt', async () => {
  await byHand(async ({ connection, bare, client, taskQueue, poll }) => {
    const handle = await client.workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: `faults-hand-${Date.now()}` });
    const workflowTask = await connection.workflowService.pollWorkflowTaskQueue(poll);
    await connection.workflowService.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: workflowTask.taskToken,
      identity: 'hand',
      commands: [
        {
          commandType: temporal.api.enums.v1.CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: 'by-hand',
            activityType: { name: 'echo' },
            taskQueue: { name: taskQueue },
            // One attempt, an hour long: an attempt lost is the activity failed an hour later.
            startToCloseTimeout: { seconds: Long.fromNumber(3_600) },
            retryPolicy: { maximumAttempts: 1 },
          },
        },
      ],
    });
    await pollWithPostgresDown(() => bare.workflowService.pollActivityTaskQueue(poll));
    const task = await bare.workflowService.pollActivityTaskQueue(poll);
    expect([task.activityId, task.attempt]).toEqual(['by-hand', 1]);
    await bare.workflowService.respondActivityTaskCompleted({ namespace: 'default', taskToken: task.taskToken, identity: 'hand' });
    const history = (await handle.fetchHistory()).events ?? [];
    expect(history.map((event) => event.eventType)).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
    await handle.terminate();
  });
});

test('a workflow task polled while PostgreSQL is down is offered again at once, not after its timeout', async () => {
  await byHand(async ({ bare, client, taskQueue, poll }) => {
    // A task timeout far beyond the test: the task comes back only because it was given back.
    const handle = await client.workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: `faults-hand-${Date.now()}`, workflowTaskTimeout: '1 hour' });
    await pollWithPostgresDown(() => bare.workflowService.pollWorkflowTaskQueue(poll));
    const task = await bare.workflowService.pollWorkflowTaskQueue(poll);
    expect([task.workflowExecution?.runId, task.attempt]).toEqual([handle.firstExecutionRunId, 2]);
    await bare.workflowService.respondWorkflowTaskCompleted({ namespace: 'default', taskToken: task.taskToken, identity: 'hand' });
    await handle.terminate();
  });
});
