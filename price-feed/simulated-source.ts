/**
 * The default price source: the seeded, session-aware price model of domain/market sampled
 * every PRICE_TICK_MS. A market that is closed emits nothing, so its latest price stays put.
 */
import type { AssetDefinition } from '../domain/catalogue';
import { sessionAt } from '../domain/calendar';
import { tickVolume, tokenPrice, underlyingPrice } from '../domain/market/price-model';
import { isMarketOpen } from '../domain/market/trading-hours';
import { formatDecimal } from '../domain/money';
import type { PriceSource, PriceTick } from './price-source';

/** The ticks of every open market at `t`; volumes cover the `periodMs` before it. */
export function simulatedTicks(assets: readonly AssetDefinition[], t: number, periodMs: number, seed?: number): PriceTick[] {
  const session = sessionAt(t);
  const seconds = periodMs / 1000;
  const ticks: PriceTick[] = [];
  for (const asset of assets) {
    const tick: PriceTick = { symbol: asset.symbol, timestamp: t };
    if (isMarketOpen(asset, 'primary', session)) {
      tick.tokenPrice = formatDecimal(tokenPrice(asset, t, seed));
      tick.tokenVolume = formatDecimal(tickVolume(asset, t, 'primary').times(seconds), 6);
    }
    if (isMarketOpen(asset, 'underlying', session)) {
      tick.underlyingPrice = formatDecimal(underlyingPrice(asset, t, seed));
      tick.underlyingVolume = formatDecimal(tickVolume(asset, t, 'underlying').times(seconds), 6);
    }
    if (tick.tokenPrice !== undefined || tick.underlyingPrice !== undefined) ticks.push(tick);
  }
  return ticks;
}

export class SimulatedPriceSource implements PriceSource {
  readonly name = 'simulated';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      assets: readonly AssetDefinition[];
      tickMs: number;
      seed?: number;
      clock?: () => number;
      /** The first failing tick of a run of failures (a database outage is reported once, not every tick). */
      onError?: (error: unknown) => void;
      /** The first tick that succeeds after failures, with how many failed. */
      onRecovered?: (failedTicks: number) => void;
    },
  ) {}

  start(emit: (ticks: PriceTick[]) => Promise<void>): void {
    const { assets, tickMs, seed, clock = Date.now, onError, onRecovered } = this.options;
    let failedTicks = 0;
    const tick = (): void => {
      if (this.stopped) return;
      this.running = emit(simulatedTicks(assets, clock(), tickMs, seed))
        .then(() => {
          if (failedTicks > 0) onRecovered?.(failedTicks);
          failedTicks = 0;
        })
        .catch((error: unknown) => {
          if (failedTicks === 0) onError?.(error);
          failedTicks += 1;
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, tickMs - (clock() % tickMs));
        });
    };
    this.timer = setTimeout(tick, tickMs - (clock() % tickMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
