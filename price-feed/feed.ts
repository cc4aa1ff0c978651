/**
 * Runs the price source for the life of the process, feeding every batch to the pipeline.
 * (Candle retention runs as a Temporal workflow: workflows/market-data-retention.ts.)
 */
import type { MarketDataPipeline } from './pipeline';
import type { PriceSource } from './price-source';

export interface RunningFeed {
  stop(): Promise<void>;
}

export function startFeed(options: { pipeline: MarketDataPipeline; source?: PriceSource }): RunningFeed {
  const { pipeline, source } = options;
  source?.start((ticks) => pipeline.ingest(ticks));
  return {
    async stop() {
      await source?.stop();
    },
  };
}
