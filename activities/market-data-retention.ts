/** Market-data maintenance activities: candle retention. */
import type { Database } from '../db/pool';
import { pruneExpiredCandles } from '../price-feed/retention';

export interface MarketDataActivityDependencies {
  db: Database;
}

export function createMarketDataActivities({ db }: MarketDataActivityDependencies) {
  return {
    /** Deletes candles past their interval's retention; idempotent (a retry deletes what is still due). */
    async pruneExpiredCandles(): Promise<{ pruned: number }> {
      return { pruned: await pruneExpiredCandles(db, Date.now()) };
    },
  };
}

export type MarketDataActivities = ReturnType<typeof createMarketDataActivities>;
