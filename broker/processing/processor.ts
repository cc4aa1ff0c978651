/**
 * The sandbox's in-process job loop (db/due-work-loop.ts). Pending work is found from SQL (on start, on a
 * wake-up after a write, and at the earliest due retry), taken under a lease so one worker runs a step at a time,
 * and run step by step (processing/steps.ts). Restart-safe: nothing is kept in memory that SQL does not hold; a lease left by a
 * process that died runs out after `leaseMs` and the work is taken again.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import type { Logger } from '../../config/logger';
import { DueWorkLoop } from '../../db/due-work-loop';
import { isDatabaseUnreachable } from '../../db/pool';
import type { IssuerClient } from '../issuer-client';
import { claimDueRequests, nextDueAt, recordStep, releaseLeases } from '../queries/requests';
import { runStep, type StepContext } from './steps';

export interface ProcessorOptions {
  db: Pool;
  logger: Logger;
  issuer: IssuerClient;
  /** First retry delay; doubles per failed attempt up to `retryMaxMs`. */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Longest sleep between looks at SQL. */
  pollMs: number;
  leaseMs: number;
  /** Requests worked on at once. */
  concurrency: number;
}

export class RequestProcessor {
  private readonly owner = `broker-${randomUUID()}`;
  private readonly context: StepContext;
  private readonly loop: DueWorkLoop;

  constructor(private readonly options: ProcessorOptions) {
    this.context = {
      db: options.db,
      logger: options.logger,
      issuer: options.issuer,
      owner: this.owner,
      retryDelayMs: (attempts) => Math.min(options.retryInitialMs * 2 ** attempts, options.retryMaxMs),
    };
    this.loop = new DueWorkLoop({
      name: 'broker processor',
      logger: options.logger,
      pollMs: options.pollMs,
      clock: Date.now,
      drain: () => this.drain(),
      nextDueAt: () => nextDueAt(options.db),
    });
  }

  /** Looks for due work now (or as soon as the current pass ends). */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Finishes the step in hand, lets go of its leases and stops looking. With the database gone the leases cannot be
   * let go of; they run out after `leaseMs`, as a dead process's do.
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    await releaseLeases(this.options.db, this.owner).catch((error: unknown) => {
      if (!isDatabaseUnreachable(error)) throw error;
      this.options.logger.warn({ err: error }, 'broker processor stopped without letting go of its leases: the database cannot be reached (they run out)');
    });
  }

  private async drain(): Promise<void> {
    while (!this.loop.isStopped) {
      const batch = await claimDueRequests(this.options.db, this.owner, this.options.leaseMs, this.options.concurrency);
      if (batch.length === 0) return;
      await Promise.all(
        batch.map(async (request) => {
          try {
            await runStep(this.context, request);
          } catch (error) {
            this.options.logger.error({ err: error, tokenizationRequestId: request.tokenizationRequestId, step: request.step }, 'broker step failed');
            await recordStep(this.options.db, request.tokenizationRequestId, this.owner, {
              retryInMs: this.context.retryDelayMs(request.attempts),
              lastError: (error as Error).message,
            }).catch(() => undefined);
          }
        }),
      );
    }
  }
}
