/** Candle retention: each interval keeps as much history as its longest OHLC range needs. */
import type { Database } from '../db/pool';
import { pruneCandles } from '../db/queries/candles';
import { INTERVAL_PLANS } from './backfill';

/** Deletes candles older than their interval's retention; returns how many. */
export async function pruneExpiredCandles(db: Database, now: number): Promise<number> {
  let pruned = 0;
  for (const plan of INTERVAL_PLANS) {
    if (Number.isFinite(plan.retentionMs)) pruned += await pruneCandles(db, plan.interval, now - plan.retentionMs);
  }
  return pruned;
}
