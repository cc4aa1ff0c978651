/**
 * An in-process loop over work that SQL says is due (the sandbox's request processor and order filler, the worker's
 * attestation workflow starts): a pass drains everything due now; it runs when woken (after a write) and otherwise at
 * the earliest due time SQL names, at most `pollMs` apart. A wake during a pass runs another one right after it.
 * Nothing is kept in memory that SQL does not hold, so a restart carries on where it stopped. While the database cannot
 * be reached the loop keeps looking, and says so once, and once more when a pass succeeds again.
 */
import type { Logger } from '../config/logger';
import { isDatabaseUnreachable } from './pool';

export interface DueWorkLoopOptions {
  /** Names the loop in its log lines (`broker processor`, `order filler`). */
  name: string;
  logger: Logger;
  /** Longest sleep between looks at SQL. */
  pollMs: number;
  clock: () => number;
  /** One pass: handles what is due until nothing is. */
  drain: () => Promise<void>;
  /** When the next piece of work falls due, if any is waiting. */
  nextDueAt: () => Promise<Date | undefined>;
}

export class DueWorkLoop {
  private running: Promise<void> | undefined;
  private scheduling: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The database could not be reached since the last pass that succeeded (already logged). */
  private unreachable = false;

  constructor(private readonly options: DueWorkLoopOptions) {}

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Looks for due work now (or as soon as the current pass ends). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.options
      .drain()
      .then(
        () => {
          if (!this.unreachable) return;
          this.unreachable = false;
          this.options.logger.info(`${this.options.name} resumed: the database answers again`);
        },
        (error: unknown) => {
          if (!this.reportedOutage(error)) this.options.logger.error({ err: error }, `${this.options.name} pass failed`);
        },
      )
      .finally(() => {
        this.running = undefined;
        this.scheduling = this.schedule();
      });
  }

  /** Finishes the pass in hand and stops looking. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.scheduling;
  }

  /** Whether `error` is the database being unreachable, logged at the first of an outage and silent after. */
  private reportedOutage(error: unknown): boolean {
    if (!isDatabaseUnreachable(error)) return false;
    if (!this.unreachable) {
      this.unreachable = true;
      this.options.logger.warn({ err: error }, `${this.options.name} paused: the database cannot be reached (reported once until a pass succeeds)`);
    }
    return true;
  }

  private async schedule(): Promise<void> {
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      this.wake();
      return;
    }
    let delay = this.options.pollMs;
    try {
      const due = await this.options.nextDueAt();
      if (due) delay = Math.max(0, Math.min(delay, due.getTime() - this.options.clock()));
    } catch (error) {
      if (!this.reportedOutage(error)) this.options.logger.warn({ err: error }, `${this.options.name} could not read its next due time`);
    }
    if (this.stopped || this.running) return;
    this.timer = setTimeout(() => this.wake(), delay);
    this.timer.unref();
  }
}

export interface OutboxDrainOptions {
  /** Names the loop in its log lines. */
  name: string;
  logger: Logger;
  pollMs: number;
  /** After a failed pass, the next waits `first`, doubling up to `max`. */
  retryMs: { first: number; max: number };
  /** The warning a failed pass logs. */
  failure: string;
  /** Rows one pass takes at most: a full pass is followed by another at once. */
  perPass: number;
  /** One pass: takes up to `perPass` rows of the outbox and acts on them in its transaction; answers how many. */
  pass: () => Promise<number>;
}

/**
 * Drains an outbox (the attestation workflow starts, the webhook wake-ups) while the process runs: at once, then every
 * `pollMs`, until stopped; after a failed pass (one warning) it waits `retryMs`, doubling, before the next.
 */
export function runOutboxDrain(options: OutboxDrainOptions): { stop(): Promise<void> } {
  let retryMs = 0;
  let retryAt = 0;
  const loop = new DueWorkLoop({
    name: options.name,
    logger: options.logger,
    pollMs: options.pollMs,
    clock: Date.now,
    drain: async () => {
      if (Date.now() < retryAt) return;
      try {
        let taken: number;
        do taken = await options.pass();
        while (taken === options.perPass && !loop.isStopped);
        retryMs = 0;
      } catch (error) {
        retryMs = Math.min(options.retryMs.max, retryMs === 0 ? options.retryMs.first : retryMs * 2);
        retryAt = Date.now() + retryMs;
        options.logger.warn({ err: error, retryInMs: retryMs }, options.failure);
      }
    },
    nextDueAt: async () => undefined,
  });
  loop.wake();
  return { stop: () => loop.stop() };
}
