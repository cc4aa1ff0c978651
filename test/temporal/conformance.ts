/**
 * Conformance suite: the real SDK worker and client against the Temporal service, asserting Temporal's
 * documented semantics. conformance.test.ts runs it against the embedded service in memory,
 * conformance-durable.test.ts against its durable mode (PostgreSQL). Its cases where the test plays the worker itself
 * (sticky queues, timers, worker shutdown) are in conformance-hand-driven.ts.
 *
 * To run the same suite against a real server:   temporal server start-dev --port 7233   then
 * TEMPORAL_ADDRESS=127.0.0.1:7233 npx jest test/temporal/conformance.test.ts
 * Time-skipping tests need the TestService (in-memory mode only) and are skipped otherwise.
 *
 * RECORD_HISTORIES=1 re-records (from the in-memory run) the histories under test/histories/ that replay.test.ts replays.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  isGrpcDeadlineError,
  isGrpcServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { google, temporal } from '@temporalio/proto';
import { describeWorkflow, listWorkflows, workflowTimeline } from '../../inspection/workflows';
import { createTemporalTestDatabase, type TemporalTestDatabase } from './database';
import { defineHandDrivenCases } from './conformance-hand-driven';
import { eventually, historyToJsonText, startTestEnvironment, type TestEnvironment } from './environment';
import {
  accumulatorWorkflow,
  activityCancelWorkflow,
  addSignal,
  businessFailureWorkflow,
  cancellableWorkflow,
  conditionTimeoutWorkflow,
  countdownWorkflow,
  failingActivityWorkflow,
  failingChildWorkflow,
  finishSignal,
  greetWorkflow,
  heartbeatTimeoutWorkflow,
  heartbeatWorkflow,
  parentWorkflow,
  retryWorkflow,
  sleepWorkflow,
  slowRetryWorkflow,
  stateQuery,
  throwingWorkflow,
  totalQuery,
} from '../../harness/temporal-workload/workflows';

const EventType = temporal.api.enums.v1.EventType;
const historiesDirectory = path.join(__dirname, '..', 'histories');

/** The suite against the embedded service in `mode` (or a real server when TEMPORAL_ADDRESS is set). */
export function defineConformanceSuite(mode: 'in-memory' | 'durable'): void {
  let env: TestEnvironment;
  let database: TemporalTestDatabase | undefined;
  let counter = 0;
  const uniqueId = (name: string) => `${name}-${Date.now()}-${(counter += 1)}`;

  beforeAll(async () => {
    database = mode === 'durable' ? await createTemporalTestDatabase('conformance') : undefined;
    env = await startTestEnvironment({ databaseUrl: database?.url });
  });

  afterAll(async () => {
    await env?.teardown();
    await database?.drop();
  });

  async function eventTypes(handle: WorkflowHandle): Promise<temporal.api.enums.v1.EventType[]> {
    const history = await handle.fetchHistory();
    return (history.events ?? []).map((event) => event.eventType ?? 0);
  }

  /** Stores a finished workflow's history for the replay tests when RECORD_HISTORIES is set. */
  async function recordHistory(name: string, handle: WorkflowHandle): Promise<void> {
    if (!process.env.RECORD_HISTORIES || mode !== 'in-memory') return;
    mkdirSync(historiesDirectory, { recursive: true });
    writeFileSync(path.join(historiesDirectory, `${name}.json`), historyToJsonText(await handle.fetchHistory()));
  }

  const testTimeSkipping = () => (process.env.TEMPORAL_ADDRESS || mode === 'durable' ? test.skip : test);

  describe('workflows and activities', () => {
    test('a workflow runs one activity and completes with its result', async () => {
      const handle = await env.client.workflow.start(greetWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('greet'), args: ['Ada'] });
      expect(await handle.result()).toBe('hello Ada');
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      await recordHistory('greet', handle);
    });

    test('a failing activity is retried per its retry policy and the successful attempt is recorded', async () => {
      const handle = await env.client.workflow.start(retryWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('retry'), args: ['k'] });
      expect(await handle.result()).toBe(3);
      const history = await handle.fetchHistory();
      const started = history.events?.find((event) => event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED);
      expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(3);
      expect(started?.activityTaskStartedEventAttributes?.lastFailure?.message).toBe('attempt 2 failed');
      await recordHistory('activity-retry', handle);
    });

    test('an activity out of attempts fails the workflow with the last failure and MAXIMUM_ATTEMPTS_REACHED', async () => {
      const error = await env.client.workflow
        .execute(failingActivityWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('exhausted') })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      const cause = (error as WorkflowFailedError).cause;
      expect(cause).toBeInstanceOf(ActivityFailure);
      expect((cause as ActivityFailure).retryState).toBe('MAXIMUM_ATTEMPTS_REACHED');
      expect((cause as ActivityFailure).cause?.message).toBe('attempt 3 failed');
    });

    test('a business failure fails the workflow with its type, without retrying', async () => {
      const error = await env.client.workflow
        .execute(businessFailureWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('business') })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(ApplicationFailure);
      expect(((error as WorkflowFailedError).cause as ApplicationFailure).type).toBe('InsufficientFunds');
    });

    test('many workflows run concurrently', async () => {
      const names = Array.from({ length: 60 }, (_, i) => `n${i}`);
      const results = await Promise.all(
        names.map((name) => env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId(`many-${name}`), args: [name] })),
      );
      expect(results).toEqual(names.map((name) => `hello ${name}`));
    });
  });

  describe('signals and queries', () => {
    test('a burst of signals sent while workflow tasks are in flight is delivered exactly once each', async () => {
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('burst') });
      await Promise.all(Array.from({ length: 40 }, (_, i) => handle.signal(addSignal, i + 1)));
      await handle.signal(finishSignal);
      expect(await handle.result()).toBe((40 * 41) / 2);
      const types = await eventTypes(handle);
      expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toHaveLength(41);
      expect(types[types.length - 1]).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
      await recordHistory('signal-burst', handle);
    });

    test('a query answers before and after the workflow completes', async () => {
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('query') });
      await handle.signal(addSignal, 5);
      await handle.signal(addSignal, 7);
      expect(await handle.query(totalQuery)).toBe(12);
      await handle.signal(finishSignal);
      expect(await handle.result()).toBe(12);
      expect(await handle.query(totalQuery)).toBe(12);
    });

    test('a query nobody answers fails with a deadline error instead of hanging', async () => {
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: `${env.taskQueue}-unpolled`, workflowId: uniqueId('unanswered') });
      const error = await env.client.connection.withDeadline(Date.now() + 1000, () => handle.query(totalQuery)).catch((caught: unknown) => caught);
      expect(isGrpcDeadlineError(error)).toBe(true);
      await handle.terminate('test done');
    });

    test('signal-with-start starts the workflow once, then signals the running one', async () => {
      const workflowId = uniqueId('sws');
      const first = await env.client.workflow.signalWithStart(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId, signal: addSignal, signalArgs: [2] });
      const second = await env.client.workflow.signalWithStart(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId, signal: addSignal, signalArgs: [3] });
      expect(second.signaledRunId).toBe(first.signaledRunId);
      await first.signal(finishSignal);
      expect(await first.result()).toBe(5);
    });
  });

  describe('start policies', () => {
    test('starting a running workflow id again fails with WorkflowExecutionAlreadyStartedError', async () => {
      const workflowId = uniqueId('conflict');
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId });
      await expect(env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId })).rejects.toBeInstanceOf(
        WorkflowExecutionAlreadyStartedError,
      );
      const existing = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId, workflowIdConflictPolicy: 'USE_EXISTING' });
      expect(existing.firstExecutionRunId).toBe(handle.firstExecutionRunId);
      await handle.terminate('test done');
    });

    test('REJECT_DUPLICATE refuses a closed workflow id; the default policy allows a new run', async () => {
      const workflowId = uniqueId('reuse');
      await env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId, args: ['a'] });
      await expect(
        env.client.workflow.start(greetWorkflow, { taskQueue: env.taskQueue, workflowId, args: ['b'], workflowIdReusePolicy: 'REJECT_DUPLICATE' }),
      ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      expect(await env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId, args: ['c'] })).toBe('hello c');
    });

    test('an already-started error carries the running run in a WorkflowExecutionAlreadyStartedFailure detail', async () => {
      const workflowId = uniqueId('already-started');
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId });
      const error = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
      expect(error).toMatchObject({ workflowId, workflowType: 'accumulatorWorkflow' });

      const raw = await env.client.workflowService
        .startWorkflowExecution({
          namespace: env.client.options.namespace,
          workflowId,
          workflowType: { name: 'accumulatorWorkflow' },
          taskQueue: { name: env.taskQueue },
          requestId: uniqueId('request'),
        })
        .catch((caught: unknown) => caught);
      expect(isGrpcServiceError(raw)).toBe(true);
      const statusBytes = (raw as { metadata: { get(key: string): unknown[] } }).metadata.get('grpc-status-details-bin')[0] as Buffer;
      const status = google.rpc.Status.decode(statusBytes);
      const detail = status.details.find((any) => any.type_url?.endsWith('temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure'));
      expect(detail).toBeDefined();
      expect(temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure.decode(detail!.value!).runId).toBe(handle.firstExecutionRunId);
      await handle.terminate('test done');
    });

    test('USE_EXISTING hands back the running workflow, and signals through that handle reach it', async () => {
      const workflowId = uniqueId('use-existing');
      const first = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId });
      await first.signal(addSignal, 1);
      const again = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId, workflowIdConflictPolicy: 'USE_EXISTING' });
      await again.signal(addSignal, 2);
      await again.signal(finishSignal);
      expect(await first.result()).toBe(3);
      const types = await eventTypes(first);
      expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)).toHaveLength(1);
      expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toHaveLength(3);
    });

    test('ALLOW_DUPLICATE_FAILED_ONLY refuses a completed workflow id and allows one that failed', async () => {
      const completedId = uniqueId('failed-only-completed');
      await env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId: completedId, args: ['a'] });
      await expect(
        env.client.workflow.start(greetWorkflow, { taskQueue: env.taskQueue, workflowId: completedId, args: ['b'], workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
      ).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);

      const failedId = uniqueId('failed-only-failed');
      await expect(env.client.workflow.execute(businessFailureWorkflow, { taskQueue: env.taskQueue, workflowId: failedId })).rejects.toBeInstanceOf(WorkflowFailedError);
      const rerun = await env.client.workflow.execute(greetWorkflow, {
        taskQueue: env.taskQueue,
        workflowId: failedId,
        args: ['again'],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      });
      expect(rerun).toBe('hello again');
    });
  });

  describe('cancel, terminate, continue-as-new, children', () => {
    test('a cancelled workflow runs its cleanup and ends CANCELED', async () => {
      const handle = await env.client.workflow.start(cancellableWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('cancel') });
      expect(await eventually(async () => handle.query(stateQuery))).toBe('waiting');
      await handle.cancel();
      const error = await handle.result().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      const types = await eventTypes(handle);
      expect(types).toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED);
      expect(types).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED);
      expect(types[types.length - 1]).toBe(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED);
      await recordHistory('cancel', handle);
    });

    test('a terminated workflow ends TERMINATED and its result rejects', async () => {
      const handle = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('terminate') });
      await handle.terminate('operator stop');
      const error = await handle.result().catch((caught: unknown) => caught);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(TerminatedFailure);
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    });

    test('continue-as-new chains runs under one workflow id and result() follows them', async () => {
      const workflowId = uniqueId('countdown');
      const handle = await env.client.workflow.start(countdownWorkflow, { taskQueue: env.taskQueue, workflowId, args: [3] });
      expect(await handle.result()).toBe(4);
      const first = env.client.workflow.getHandle(workflowId, handle.firstExecutionRunId);
      expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
      expect((await env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('COMPLETED');
      await recordHistory('continue-as-new-first-run', first);
    });

    test('child workflows run and return their results to the parent', async () => {
      const handle = await env.client.workflow.start(parentWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('parent'), args: [['x', 'y', 'z']] });
      expect(await handle.result()).toEqual(['hello x', 'hello y', 'hello z']);
      const types = await eventTypes(handle);
      expect(types.filter((type) => type === EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED)).toHaveLength(3);
      await recordHistory('children', handle);
    });

    test('a failing child reaches the parent as a ChildWorkflowFailure', async () => {
      const result = await env.client.workflow.execute(failingChildWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('failing-parent') });
      expect(result).toBe('child failed: attempt 3 failed');
    });
  });

  describe('heartbeats and activity cancellation', () => {
    test('heartbeats keep an activity alive', async () => {
      expect(await env.client.workflow.execute(heartbeatWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('heartbeat'), args: [10] })).toBe(10);
    });

    test('an activity that stops heartbeating times out with TIMEOUT_TYPE_HEARTBEAT after its attempts', async () => {
      const error = await env.client.workflow
        .execute(heartbeatTimeoutWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('heartbeat-timeout') })
        .catch((caught: unknown) => caught);
      const activityFailure = (error as WorkflowFailedError).cause as ActivityFailure;
      expect(activityFailure).toBeInstanceOf(ActivityFailure);
      expect(activityFailure.retryState).toBe('MAXIMUM_ATTEMPTS_REACHED');
      expect(activityFailure.cause).toBeInstanceOf(TimeoutFailure);
      expect((activityFailure.cause as TimeoutFailure).timeoutType).toBe(TimeoutType.HEARTBEAT);
    });

    test('a cancelled activity learns of it through its heartbeat and ends ActivityTaskCanceled', async () => {
      const handle = await env.client.workflow.start(activityCancelWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('activity-cancel') });
      expect(await handle.result()).toBe('activity cancelled');
      expect(await eventTypes(handle)).toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED);
    });
  });

  describe('workflow task failures', () => {
    test('a workflow whose code throws keeps retrying its workflow task until terminated', async () => {
      const handle = await env.client.workflow.start(throwingWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('throws') });
      await eventually(async () => {
        const types = await eventTypes(handle);
        expect(types).toContain(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
        const description = await handle.describe();
        expect(description.status.name).toBe('RUNNING');
        expect(description.raw.pendingWorkflowTask?.attempt).toBeGreaterThanOrEqual(2);
      });
      const failed = (await handle.fetchHistory()).events?.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
      expect(failed?.workflowTaskFailedEventAttributes?.failure?.message).toBe('bug in workflow code');
      await handle.terminate('unrecoverable bug');
      expect((await handle.describe()).status.name).toBe('TERMINATED');
    });

    test('retries after the first failure are transient: attempts grow, history keeps one failed task', async () => {
      // The SDK reports only the first failure; later attempts end by the workflow task timeout (1 s here).
      const handle = await env.client.workflow.start(throwingWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('transient'), workflowTaskTimeout: '1s' });
      await eventually(async () => {
        expect((await handle.describe()).raw.pendingWorkflowTask?.attempt).toBeGreaterThanOrEqual(3);
      }, 20_000);
      await handle.terminate('unrecoverable bug');
      expect(await eventTypes(handle)).toEqual([
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
        EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
      ]);
    });
  });

  defineHandDrivenCases({ env: () => env, uniqueId });

  describe('visibility', () => {
    test('list and count filter by workflow type, id prefix and status', async () => {
      const prefix = uniqueId('visible');
      await env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId: `${prefix}-done`, args: ['v'] });
      const open = await env.client.workflow.start(accumulatorWorkflow, { taskQueue: env.taskQueue, workflowId: `${prefix}-open` });
      await eventually(async () => {
        const ids: string[] = [];
        for await (const info of env.client.workflow.list({ query: `WorkflowId STARTS_WITH '${prefix}' AND ExecutionStatus = 'Running'` })) ids.push(info.workflowId);
        expect(ids).toEqual([`${prefix}-open`]);
        const { count } = await env.client.workflow.count(`WorkflowType = 'greetWorkflow' AND WorkflowId STARTS_WITH '${prefix}'`);
        expect(count).toBe(1);
      });
      await open.terminate('test done');
    });
  });

  describe('operator inspection', () => {
    test('describeWorkflow shows a pending activity with its attempt and last failure, and pending timers', async () => {
      const workflowId = uniqueId('inspect-activity');
      const handle = await env.client.workflow.start(slowRetryWorkflow, { taskQueue: env.taskQueue, workflowId });
      const description = await eventually(async () => {
        const described = await describeWorkflow(env.client, workflowId);
        expect(described.pendingActivities[0]?.attempt).toBe(2);
        return described;
      });
      expect(description).toMatchObject({ workflowId, type: 'slowRetryWorkflow', status: 'RUNNING' });
      expect(description.pendingActivities[0]).toMatchObject({ activityType: 'alwaysFails', lastFailure: { message: 'attempt 1 failed', type: 'Broken' } });
      await handle.terminate('test done');

      const sleeperId = uniqueId('inspect-timer');
      const sleeper = await env.client.workflow.start(sleepWorkflow, { taskQueue: env.taskQueue, workflowId: sleeperId, args: [60 * 60 * 1000] });
      const timers = await eventually(async () => {
        const { pendingTimers } = await describeWorkflow(env.client, sleeperId);
        expect(pendingTimers).toHaveLength(1);
        return pendingTimers;
      });
      const startMs = (await sleeper.describe()).startTime.getTime();
      expect(new Date(timers[0]!.firesAt!).getTime() - startMs).toBeGreaterThanOrEqual(60 * 60 * 1000 - 1000);
      await sleeper.terminate('test done');
    });

    test('workflowTimeline renders readable event types and decoded payloads; listWorkflows filters', async () => {
      const workflowId = uniqueId('inspect-timeline');
      await env.client.workflow.execute(greetWorkflow, { taskQueue: env.taskQueue, workflowId, args: ['Grace'] });
      const timeline = await workflowTimeline(env.client, workflowId);
      expect(timeline[0]).toMatchObject({ eventId: 1, type: 'WorkflowExecutionStarted', details: { input: ['Grace'] } });
      expect(timeline.map((entry) => entry.type)).toContain('ActivityTaskCompleted');
      expect(timeline[timeline.length - 1]).toMatchObject({ type: 'WorkflowExecutionCompleted', details: { result: ['hello Grace'] } });
      expect(timeline.every((entry) => entry.time !== null && !Number.isNaN(Date.parse(entry.time)))).toBe(true);
      const listed = await eventually(async () => {
        const found = await listWorkflows(env.client, { idPrefix: workflowId, type: 'greetWorkflow', status: 'COMPLETED' });
        expect(found).toHaveLength(1);
        return found;
      });
      expect(listed[0]).toMatchObject({ workflowId, status: 'COMPLETED', type: 'greetWorkflow' });
      expect(await listWorkflows(env.client, { idPrefix: workflowId, status: 'RUNNING' })).toEqual([]);
    });
  });

  describe('time skipping', () => {
    testTimeSkipping()('a workflow sleeping a day finishes in well under a second of real time', async () => {
      const timeSkipping = env.timeSkipping!;
      const before = await timeSkipping.currentTime();
      const startedAt = Date.now();
      const handle = await env.client.workflow.start(sleepWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('sleep'), args: [24 * 60 * 60 * 1000] });
      expect(await timeSkipping.whileUnlocked(() => handle.result())).toBe('woke');
      expect(Date.now() - startedAt).toBeLessThan(1000);
      const after = await timeSkipping.currentTime();
      expect(after.getTime() - before.getTime()).toBeGreaterThanOrEqual(24 * 60 * 60 * 1000);
      const events = (await handle.fetchHistory()).events ?? [];
      const seconds = (event: (typeof events)[number] | undefined) => Number(event?.eventTime?.seconds ?? 0);
      const fired = events.find((event) => event.eventType === EventType.EVENT_TYPE_TIMER_FIRED);
      expect(seconds(fired) - seconds(events[0])).toBeGreaterThanOrEqual(24 * 60 * 60);
      await recordHistory('timer-day', handle);
    });

    testTimeSkipping()('condition with a timeout: times out in virtual time, or returns true when signalled first', async () => {
      const timeSkipping = env.timeSkipping!;
      const timedOut = await env.client.workflow.start(conditionTimeoutWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('cond'), args: [60 * 60 * 1000] });
      expect(await timeSkipping.whileUnlocked(() => timedOut.result())).toBe(false);
      const signalled = await env.client.workflow.start(conditionTimeoutWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('cond'), args: [60 * 60 * 1000] });
      await signalled.signal(finishSignal);
      expect(await timeSkipping.whileUnlocked(() => signalled.result())).toBe(true);
    });

    testTimeSkipping()('time does not skip while locked: a sleeping workflow stays running', async () => {
      const handle = await env.client.workflow.start(sleepWorkflow, { taskQueue: env.taskQueue, workflowId: uniqueId('locked'), args: [60 * 60 * 1000] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await env.timeSkipping!.skip(60 * 60 * 1000 + 1000);
      expect(await handle.result()).toBe('woke');
    });
  });
}
