/**
 * The parts a process runs (`npm start`: all of them; start/*.ts starts each), stopped in reverse order of starting,
 * each within its deadline: a part still stopping at its deadline is killed when it can be (a child process: SIGKILL
 * to its process group) and left behind otherwise (in-process work ends with the process), so one stuck part never
 * keeps the others running.
 *
 * Stopping may begin while the product is still starting (a signal during start-up): the parts started so far stop
 * at once, and a part whose start was under way is stopped as soon as it is added.
 */
import type { Logger } from '../config/logger';

export interface Part {
  name: string;
  stop(): Promise<void>;
  /** How long `stop` may take (default 10 s). */
  deadlineMs?: number;
  /** Ends the part at once, when `stop` missed its deadline (child processes). */
  kill?(): void;
}

const DEFAULT_DEADLINE_MS = 10_000;

export class Parts {
  private readonly parts: Part[] = [];
  /** Every part ever added, for `killAll`. */
  private readonly everything: Part[] = [];
  private stopping: Promise<void> | undefined;
  /** Parts added after stopping began, being stopped. */
  private readonly late: Promise<void>[] = [];

  constructor(private readonly logger: Logger) {}

  get stopRequested(): boolean {
    return this.stopping !== undefined;
  }

  add(part: Part): void {
    this.everything.push(part);
    if (this.stopping) this.late.push(this.stopOne(part));
    else this.parts.push(part);
  }

  /** Stops every part (once; later calls answer the same promise), then any part added meanwhile. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (let part = this.parts.pop(); part; part = this.parts.pop()) await this.stopOne(part);
    })();
    return this.stopping;
  }

  /** Resolves once every part, including those added after stopping began, has stopped or been given up on. */
  async stopped(): Promise<void> {
    await this.stop();
    await Promise.all(this.late);
  }

  /** Kills at once every part that can be killed, stopped or not (the last resort of a shutdown past its own deadline). */
  killAll(): void {
    for (const part of this.everything) part.kill?.();
  }

  /**
   * These parts as one part of a larger whole (a part made of parts, such as PostgreSQL and its pool): stopped
   * together, in reverse order, each within its own deadline (their sum is the whole's), and killed together.
   */
  asPart(name: string): Part {
    const deadlineMs = this.parts.reduce((sum, part) => sum + (part.deadlineMs ?? DEFAULT_DEADLINE_MS), 0);
    return { name, deadlineMs, stop: () => this.stopped(), kill: () => this.killAll() };
  }

  private async stopOne(part: Part): Promise<void> {
    const deadlineMs = part.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), deadlineMs);
    });
    try {
      const outcome = await Promise.race([part.stop().then(() => 'stopped' as const), timedOut]);
      if (outcome === 'timeout') {
        this.logger.warn({ part: part.name, deadlineMs }, part.kill ? 'part did not stop in time; killed' : 'part did not stop in time; left to the exit');
        part.kill?.();
      } else {
        this.logger.debug({ part: part.name, ms: Date.now() - started }, 'part stopped');
      }
    } catch (error) {
      this.logger.error({ part: part.name, err: error }, 'part failed to stop');
      part.kill?.();
    } finally {
      clearTimeout(timer);
    }
  }
}
