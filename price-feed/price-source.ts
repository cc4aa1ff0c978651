/**
 * Where prices come from. Every source emits batches of ticks; the pipeline turns them into
 * latest prices and candles. The default is the simulated feed; real data comes in through the
 * admin ingestion endpoint (POST /v1/market-data/ticks) with PRICE_SOURCE=external.
 */

/** One observation of an asset: its token price, its underlying's price, or both. Prices and volumes are decimal strings. */
export interface PriceTick {
  symbol: string;
  /** Epoch ms. */
  timestamp: number;
  tokenPrice?: string;
  /** Tokens traded since the previous tick. */
  tokenVolume?: string;
  underlyingPrice?: string;
  /** Underlying shares traded since the previous tick. */
  underlyingVolume?: string;
}

export interface PriceSource {
  readonly name: string;
  /** Starts emitting; `emit` resolves once a batch is stored, and the source waits for it before the next. */
  start(emit: (ticks: PriceTick[]) => Promise<void>): void;
  stop(): Promise<void>;
}
