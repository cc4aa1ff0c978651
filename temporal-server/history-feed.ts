/**
 * History reads of the in-memory service: GetWorkflowExecutionHistory pages (with their page tokens), the
 * close-event-only filter, and the long-poll (waitNewEvent) that waits for a run's history to grow or for the
 * run to close.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ServiceError } from './errors';
import { temporal } from './proto';
import { type WorkflowRun } from './workflow-state';

type WorkflowExecution = temporal.api.common.v1.IWorkflowExecution;
const Enums = temporal.api.enums.v1;

export class HistoryFeed {
  private readonly historyWaiters = new Map<WorkflowRun, Set<() => void>>();

  constructor(
    /** Longest wait of a long-poll before it answers with no new events. */
    private readonly longPollMs: number,
    private readonly findRun: (execution: WorkflowExecution | null | undefined) => WorkflowRun,
  ) {}

  /** Wakes the long-polls waiting on `run` (called after every new history event and when it closes). */
  historyGrew(run: WorkflowRun): void {
    const waiters = this.historyWaiters.get(run);
    if (!waiters) return;
    this.historyWaiters.delete(run);
    for (const wake of waiters) wake();
  }

  /** Ends every long-poll (the service is stopping). */
  wakeAll(): void {
    for (const waiters of this.historyWaiters.values()) for (const wake of waiters) wake();
  }

  /** GetWorkflowExecutionHistory: a page of events, or — with waitNewEvent — the next ones once written. */
  async read(
    request: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest,
    deadline: number,
  ): Promise<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse> {
    const page = decodePageToken(request.nextPageToken);
    const run = this.findRun(page ? { workflowId: request.execution?.workflowId, runId: page.runId } : request.execution);
    const closeOnly = request.historyEventFilterType === Enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT;
    const from = page?.next ?? 1;
    const waitUntil = Math.min(deadline - 500, Date.now() + this.longPollMs);
    const hasNews = () => !run.isRunning || (!closeOnly && run.history.length >= from);
    if (request.waitNewEvent && !hasNews()) {
      await this.waitForHistory(run, waitUntil, hasNews);
    }
    if (closeOnly) {
      if (run.isRunning) return { history: { events: [] }, nextPageToken: encodePageToken(run.runId, from) };
      return { history: { events: run.history.slice(-1) } };
    }
    const pageSize = request.maximumPageSize > 0 ? request.maximumPageSize : 1000;
    const events = run.history.slice(from - 1, from - 1 + pageSize);
    const next = from + events.length;
    const more = next <= run.history.length || (request.waitNewEvent && run.isRunning);
    return { history: { events }, nextPageToken: more ? encodePageToken(run.runId, next) : undefined };
  }

  private waitForHistory(run: WorkflowRun, until: number, done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const wake = (): void => {
        if (done()) finish();
        else this.addHistoryWaiter(run, wake);
      };
      const timer = setTimeout(finish, Math.max(0, until - Date.now()));
      timer.unref();
      this.addHistoryWaiter(run, wake);
    });
  }

  private addHistoryWaiter(run: WorkflowRun, wake: () => void): void {
    let waiters = this.historyWaiters.get(run);
    if (!waiters) {
      waiters = new Set();
      this.historyWaiters.set(run, waiters);
    }
    waiters.add(wake);
  }
}

function encodePageToken(runId: string, next: number): Buffer {
  return Buffer.from(JSON.stringify({ runId, next }));
}

function decodePageToken(bytes: Uint8Array | null | undefined): { runId: string; next: number } | undefined {
  if (!bytes?.length) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as { runId: string; next: number };
  } catch {
    throw new ServiceError(GrpcStatus.INVALID_ARGUMENT, 'invalid next page token');
  }
}
