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
