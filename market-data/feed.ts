/**
 * Runs market data for the life of the process: a price source feeding the pipeline, and an
 * hourly pruning of candles past their retention.
 */
import type { Database } from '../db/pool';
import { pruneCandles } from '../db/queries/market-data';
import type { Logger } from '../api/framework/logger';
import { INTERVAL_PLANS } from './backfill';
import type { MarketDataPipeline } from './pipeline';
import type { PriceSource } from './price-source';

const PRUNE_EVERY_MS = 3_600_000;

export interface RunningFeed {
  stop(): Promise<void>;
}

/** Deletes candles older than their interval's retention; returns how many. */
export async function pruneExpiredCandles(db: Database, now: number): Promise<number> {
  let pruned = 0;
  for (const plan of INTERVAL_PLANS) {
    if (Number.isFinite(plan.retentionMs)) pruned += await pruneCandles(db, plan.interval, now - plan.retentionMs);
  }
  return pruned;
}

export function startFeed(options: { db: Database; pipeline: MarketDataPipeline; source?: PriceSource; logger: Logger }): RunningFeed {
  const { db, pipeline, source, logger } = options;
  source?.start((ticks) => pipeline.ingest(ticks));
  const prune = (): void => {
    pruneExpiredCandles(db, Date.now())
      .then((count) => count > 0 && logger.debug({ count }, 'pruned candles past retention'))
      .catch((error: unknown) => logger.error({ err: error }, 'pruning candles failed'));
  };
  const timer = setInterval(prune, PRUNE_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await source?.stop();
    },
  };
}
