/**
 * The conformance suite's hand-driven cases (conformance.ts runs them in both modes): the test plays the worker,
 * calling the service's gRPC methods itself, so that it can hold a workflow task open while something happens —
 * sticky queues, a timer firing during the task that cancels it, a worker shutting down with polls waiting.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { status as grpcStatus } from '@grpc/grpc-js';
import Long from 'long';
import type { TestEnvironment } from './environment';
import { addSignal, finishSignal, waitForFinishWorkflow } from '../../harness/temporal-workload/workflows';

const EventType = temporal.api.enums.v1.EventType;

export interface ConformanceContext {
  /** The environment the suite started (in beforeAll). */
  env(): TestEnvironment;
  /** A workflow id or task queue name no other test uses. */
  uniqueId(name: string): string;
}

export function defineHandDrivenCases({ env: environment, uniqueId }: ConformanceContext): void {
  const client = () => environment().client;
  /** The service's gRPC methods and the namespace, called directly. */
  const service = () => client().workflowService;
  const namespace = () => client().options.namespace;

  describe('sticky task queues (a hand-driven worker on its own task queue)', () => {

    test('after a completion naming a sticky queue, the next task goes there with only the new events; unpicked, it returns to the normal queue', async () => {
      const taskQueue = uniqueId('hand-driven');
      const stickyQueue = `${taskQueue}-sticky`;
      const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: uniqueId('sticky') });
      const first = await service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'hand' });
      expect(first.history?.events?.[0]?.eventId?.toString()).toBe('1');
      await service().respondWorkflowTaskCompleted({
        namespace: namespace(),
        taskToken: first.taskToken,
        identity: 'hand',
        stickyAttributes: { workerTaskQueue: { name: stickyQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY }, scheduleToStartTimeout: { seconds: Long.fromNumber(1) } },
      });
      const stickyPoll = () =>
        service().pollWorkflowTaskQueue({
          namespace: namespace(),
          taskQueue: { name: stickyQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: taskQueue },
          identity: 'hand',
        });
      // A sticky queue counts only while its worker polls it: poll once briefly so the server sees this one live.
      await client().connection.withDeadline(Date.now() + 200, stickyPoll).catch(() => undefined);
      await handle.signal(finishSignal);
      const sticky = await stickyPoll();
      const stickyEvents = sticky.history?.events ?? [];
      expect(sticky.previousStartedEventId?.toString()).toBe(first.startedEventId?.toString());
      expect(stickyEvents[0]?.eventId?.toString()).toBe(String(Number(first.startedEventId) + 1));
      expect(stickyEvents[0]?.eventType).toBe(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      expect(stickyEvents.map((event) => event.eventType)).toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED);
      await service().respondWorkflowTaskCompleted({
        namespace: namespace(),
        taskToken: sticky.taskToken,
        identity: 'hand',
        stickyAttributes: { workerTaskQueue: { name: stickyQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_STICKY }, scheduleToStartTimeout: { seconds: Long.fromNumber(1) } },
      });

      await handle.signal(addSignal, 1);
      const fallback = await service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'other-hand' });
      const events = fallback.history?.events ?? [];
      expect(events[0]?.eventId?.toString()).toBe('1');
      const timedOut = events.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
      expect(timedOut?.workflowTaskTimedOutEventAttributes?.timeoutType).toBe(temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
      await handle.terminate('test done');
    });
  });

  describe('timers (a hand-driven worker)', () => {
    const CommandType = temporal.api.enums.v1.CommandType;
    const startTimer = (timerId: string, seconds: number) => ({
      commandType: CommandType.COMMAND_TYPE_START_TIMER,
      startTimerCommandAttributes: { timerId, startToFireTimeout: { seconds: Long.fromNumber(seconds) } },
    });

    test('a timer that fires while the workflow task canceling it runs is canceled: its fire is never written, so replay sees what the workflow did', async () => {
      const taskQueue = uniqueId('hand-driven');
      const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: uniqueId('timer-race') });
      const poll = () => service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'hand' });
      const first = await poll();
      await service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: first.taskToken, identity: 'hand', commands: [startTimer('race', 2)] });
      await handle.signal(finishSignal);
      const second = await poll();
      expect((second.history?.events ?? []).map((event) => event.eventType)).not.toContain(EventType.EVENT_TYPE_TIMER_FIRED);
      // The timer fires while this task runs; the task, woken by the signal, cancels it.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await service().respondWorkflowTaskCompleted({
        namespace: namespace(),
        taskToken: second.taskToken,
        identity: 'hand',
        commands: [{ commandType: CommandType.COMMAND_TYPE_CANCEL_TIMER, cancelTimerCommandAttributes: { timerId: 'race' } }, startTimer('after', 3_600)],
      });
      const history = (await handle.fetchHistory()).events ?? [];
      expect(history.slice(-3).map((event) => event.eventType)).toEqual([
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_TIMER_CANCELED,
        EventType.EVENT_TYPE_TIMER_STARTED,
      ]);
      expect(history.map((event) => event.eventType)).not.toContain(EventType.EVENT_TYPE_TIMER_FIRED);
      expect(history.at(-2)?.timerCanceledEventAttributes?.timerId).toBe('race');
      await handle.terminate('test done');
    });

    test('a task that cancels a timer whose fire is buffered may close the workflow in the same task; another buffered event refuses the close', async () => {
      const taskQueue = uniqueId('hand-driven');
      const poll = () => service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'hand' });
      const cancelThenComplete = [
        { commandType: CommandType.COMMAND_TYPE_CANCEL_TIMER, cancelTimerCommandAttributes: { timerId: 'race' } },
        { commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION, completeWorkflowExecutionCommandAttributes: {} },
      ];
      /** A started task woken by a signal, during which the workflow's timer fires (and `during`, if given, happens). */
      const taskWithFiredTimer = async (workflowId: string, during?: (handle: WorkflowHandle) => Promise<void>) => {
        const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId });
        const first = await poll();
        await service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: first.taskToken, identity: 'hand', commands: [startTimer('race', 2)] });
        await handle.signal(finishSignal);
        const task = await poll();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        await during?.(handle);
        return { handle, task };
      };

      const alone = await taskWithFiredTimer(uniqueId('close-after-cancel'));
      await service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: alone.task.taskToken, identity: 'hand', commands: cancelThenComplete });
      const closed = (await alone.handle.fetchHistory()).events ?? [];
      expect(closed.slice(-3).map((event) => event.eventType)).toEqual([
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_TIMER_CANCELED,
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
      ]);
      expect(closed.map((event) => event.eventType)).not.toContain(EventType.EVENT_TYPE_TIMER_FIRED);

      const withSignal = await taskWithFiredTimer(uniqueId('refused-close'), (handle) => handle.signal(finishSignal));
      await service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: withSignal.task.taskToken, identity: 'hand', commands: cancelThenComplete });
      const refused = (await withSignal.handle.fetchHistory()).events ?? [];
      const failed = refused.find((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
      expect(failed?.workflowTaskFailedEventAttributes?.cause).toBe(temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND);
      expect(refused.map((event) => event.eventType)).not.toContain(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED);
      await withSignal.handle.terminate('test done');
    });
  });

  describe('long histories and slow workflow tasks (a hand-driven worker)', () => {

    test("WorkflowTaskStarted reports the history's length and size, and suggests continuing as new from the server's limits (4,096 events)", async () => {
      const taskQueue = uniqueId('long-history');
      const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: uniqueId('long-history') });
      const poll = () => service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'hand' });
      const startedOf = (task: temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse) =>
        task.history?.events?.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED).at(-1)?.workflowTaskStartedEventAttributes;
      const first = await poll();
      expect(Number(startedOf(first)?.historySizeBytes)).toBeGreaterThan(0);
      expect(startedOf(first)?.suggestContinueAsNew ?? false).toBe(false);
      await service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: first.taskToken, identity: 'hand' });
      // While no task is started, each signal is one event in history: 4,100 of them pass the count.
      for (let batch = 0; batch < 41; batch += 1) await Promise.all(Array.from({ length: 100 }, () => handle.signal(addSignal, 1)));
      const long = await poll();
      const started = startedOf(long);
      expect(Number(long.startedEventId)).toBeGreaterThanOrEqual(4_096);
      expect(Number(started?.historySizeBytes)).toBeGreaterThan(Number(startedOf(first)?.historySizeBytes) * 100);
      expect(started?.suggestContinueAsNew).toBe(true);
      await handle.terminate('test done');
    });

    test('a workflow task slower than its timeout is not timed out for ever: from the fourth attempt each gets more time, and its completion is taken', async () => {
      const taskQueue = uniqueId('slow-task');
      const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: uniqueId('slow-task'), workflowTaskTimeout: '1s' });
      const poll = () => service().pollWorkflowTaskQueue({ namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'hand' });
      const complete = (task: temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse) =>
        service().respondWorkflowTaskCompleted({ namespace: namespace(), taskToken: task.taskToken, identity: 'hand' });
      const timeoutOf = (task: temporal.api.workflowservice.v1.IPollWorkflowTaskQueueResponse) =>
        Number(task.history?.events?.filter((event) => event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED).at(-1)?.workflowTaskScheduledEventAttributes?.startToCloseTimeout?.seconds);
      // Three attempts held past their timeout (1 s): each is timed out and handed out again, and its late completion refused.
      let task = await poll();
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        expect(task.attempt).toBe(attempt);
        expect(timeoutOf(task)).toBe(1);
        const next = await poll();
        await expect(complete(task)).rejects.toMatchObject({ code: grpcStatus.NOT_FOUND });
        task = next;
      }
      // The fourth has 1 s + 5 s (the server takes up to a fifth off, at random): held past the run's timeout, it is completed all the same.
      expect(task.attempt).toBe(4);
      expect(timeoutOf(task)).toBeGreaterThanOrEqual(5);
      if (!process.env.TEMPORAL_ADDRESS) expect(timeoutOf(task)).toBe(6);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await complete(task);
      const types = (await handle.fetchHistory()).events?.map((event) => event.eventType) ?? [];
      expect(types.filter((type) => type === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)).toHaveLength(1);
      expect(types.at(-1)).toBe(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
      await handle.terminate('test done');
    });
  });

  describe('worker shutdown (a hand-driven worker)', () => {

    test('a worker that shuts down has its waiting polls answered with no task, so it can let them return; its work goes to the next worker', async () => {
      const described = await service().describeNamespace({ namespace: namespace() });
      expect(described.namespaceInfo?.capabilities?.workerPollCompleteOnShutdown).toBe(true);
      const taskQueue = uniqueId('shutting-down');
      const leaving = { namespace: namespace(), taskQueue: { name: taskQueue }, identity: 'leaving', workerInstanceKey: uniqueId('leaving') };
      // Answered by the shutdown, well before the poll's own minute runs out.
      const within = <T>(call: () => Promise<T>) => client().connection.withDeadline(Date.now() + 10_000, call);
      const waiting = [within(() => service().pollWorkflowTaskQueue(leaving)), within(() => service().pollActivityTaskQueue(leaving))];
      await new Promise((resolve) => setTimeout(resolve, 200));
      await service().shutdownWorker({ namespace: namespace(), identity: 'leaving', workerInstanceKey: leaving.workerInstanceKey, taskQueue, reason: 'test' });
      for (const answer of await Promise.all(waiting)) expect(answer.taskToken?.length ?? 0).toBe(0);

      const handle = await client().workflow.start(waitForFinishWorkflow, { taskQueue, workflowId: uniqueId('after-shutdown') });
      if (!process.env.TEMPORAL_ADDRESS) {
        // The embedded service also answers at once a poll that reaches it after the worker's shutdown (sent before
        // it), leaving the task to others; what a real server does with one is not documented.
        const late = await within(() => service().pollWorkflowTaskQueue(leaving));
        expect(late.taskToken?.length ?? 0).toBe(0);
      }
      const next = await service().pollWorkflowTaskQueue({ ...leaving, identity: 'next', workerInstanceKey: uniqueId('next') });
      expect(next.workflowExecution?.workflowId).toBe(handle.workflowId);
      await handle.terminate('test done');
    });
  });
}
