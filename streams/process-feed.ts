/**
 * What feeds one process's hub: batches its own pipeline stored (also announced to the other processes through
 * PostgreSQL NOTIFY), and batches the other processes announce.
 */
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import type { HubBatch, MarketStreamHub } from './hub';
import { announceStored, listenForMarketData } from './market-data-notify';

export interface MarketStreamsFeed {
  /** The pipeline's `onStored` hook. */
  onStored(batch: HubBatch): void;
  stop(): Promise<void>;
}

export async function feedMarketStreams(parameters: { hub: MarketStreamHub; db: Database; databaseUrl: string; logger?: Logger }): Promise<MarketStreamsFeed> {
  const { hub, db, databaseUrl, logger } = parameters;
  const listener = await listenForMarketData(databaseUrl, hub.origin, {
    onBatch: (batch) => hub.publishStored(batch),
    onResync: () => hub.resync(),
    onConnectionLost: (error) => logger?.warn({ err: error }, 'live market data from other processes lost; reconnecting'),
  });
  return {
    onStored(batch) {
      hub.publishStored(batch);
      announceStored(db, hub.origin, batch).catch((error: unknown) => logger?.warn({ err: error }, 'announcing live market data to other processes failed'));
    },
    stop: () => listener.stop(),
  };
}
