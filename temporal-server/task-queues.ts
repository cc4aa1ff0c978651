/**
 * Long-poll matching for the in-memory service: each task queue holds tasks waiting for a poller and pollers
 * waiting for a task. A task is an offer that is turned into a response only when handed to a live poller
 * (returning undefined when it has gone stale, e.g. its workflow was terminated), so a cancelled poll never
 * swallows work.
 */

/** Produces the poll response for a task at hand-over time, or undefined if the task is no longer valid. */
export type TaskOffer<Response> = (pollerIdentity: string) => Response | undefined;

/** Who polls: the worker's identity, and its instance key when it sends one (ShutdownWorker names it). */
export interface PollingWorker {
  identity: string;
  workerInstanceKey?: string | null;
}

interface Poller<Response> extends PollingWorker {
  deliver(response: Response | undefined): void;
}

/** How long a sticky queue counts as served after its last poll (the real server's matching uses 10 s). */
const pollerLivenessMs = 10_000;

export class TaskQueue<Response> {
  private tasks: TaskOffer<Response>[] = [];
  private head = 0;
  private readonly pollers = new Set<Poller<Response>>();
  /** Real time of the last poll; 0 when never polled or the worker said it shut down. */
  private lastPollAt = 0;

  get backlog(): number {
    return this.tasks.length - this.head;
  }

  /** A worker polls this queue now or did recently (liveness is real time, not virtual time). */
  get hasLivePoller(): boolean {
    return this.pollers.size > 0 || (this.lastPollAt > 0 && Date.now() - this.lastPollAt < pollerLivenessMs);
  }

  /** The worker behind this queue shut down: answer its waiting polls and stop counting it as live. */
  abandon(): void {
    this.releasePollers();
    this.lastPollAt = 0;
  }

  /** Adds a task, handing it to a waiting poller at once if there is one. */
  offer(task: TaskOffer<Response>): void {
    for (const poller of this.pollers) {
      const response = task(poller.identity);
      if (response === undefined) return;
      this.pollers.delete(poller);
      poller.deliver(response);
      return;
    }
    this.tasks.push(task);
  }

  /**
   * Waits up to `timeoutMs` for a task. Resolves undefined on timeout. `onCancel` registers a hook the caller
   * fires when its gRPC call is cancelled; the poller then leaves the queue without taking anything.
   */
  poll(from: PollingWorker, timeoutMs: number, onCancel: (hook: () => void) => void): Promise<Response | undefined> {
    this.lastPollAt = Date.now();
    const ready = this.takeReady(from.identity);
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => {
      const poller: Poller<Response> = {
        identity: from.identity,
        workerInstanceKey: from.workerInstanceKey,
        deliver: (response) => {
          clearTimeout(timer);
          this.lastPollAt = Date.now();
          resolve(response);
        },
      };
      const timer = setTimeout(() => {
        this.pollers.delete(poller);
        this.lastPollAt = Date.now();
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      onCancel(() => {
        if (this.pollers.delete(poller)) {
          clearTimeout(timer);
          this.lastPollAt = Date.now();
          resolve(undefined);
        }
      });
      this.pollers.add(poller);
    });
  }

  /** Answers every waiting poller with "no task" (used when the service stops). */
  releasePollers(): void {
    for (const poller of this.pollers) poller.deliver(undefined);
    this.pollers.clear();
  }

  /** Answers the waiting polls of one worker instance with "no task". */
  releaseWorker(workerInstanceKey: string): void {
    for (const poller of this.pollers) {
      if (poller.workerInstanceKey !== workerInstanceKey) continue;
      this.pollers.delete(poller);
      poller.deliver(undefined);
    }
  }

  private takeReady(identity: string): Response | undefined {
    while (this.head < this.tasks.length) {
      const task = this.tasks[this.head]!;
      this.head += 1;
      const response = task(identity);
      if (this.head > 1024 && this.head * 2 > this.tasks.length) {
        this.tasks = this.tasks.slice(this.head);
        this.head = 0;
      }
      if (response !== undefined) return response;
    }
    return undefined;
  }
}

/** The task queues of one kind (workflow or activity), created on first use by name. */
export class TaskQueues<Response> {
  private readonly queues = new Map<string, TaskQueue<Response>>();

  get(name: string): TaskQueue<Response> {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new TaskQueue<Response>();
      this.queues.set(name, queue);
    }
    return queue;
  }

  releaseAll(): void {
    for (const queue of this.queues.values()) queue.releasePollers();
  }

  releaseWorker(workerInstanceKey: string): void {
    for (const queue of this.queues.values()) queue.releaseWorker(workerInstanceKey);
  }
}
