/** GET /v1/tickers — last price and 24 h volumes of every token against the settlement token. */
import type { Middleware } from 'koa';
import { listLatestPrices, primaryVolumesSince } from '../../../db/queries/prices';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';

/** The stable token that trades settle in. */
export const SETTLEMENT_TOKEN = 'USDon';

export interface TickerView {
  tickerId: string;
  baseCurrency: string;
  targetCurrency: string;
  lastPrice: number;
  baseVolume: number;
  targetVolume: number;
}

export function tickersRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    await respondCached(ctx, services, { tag: 'prices', key: 'tickers', ttlMs: 1_000 }, async () => {
      const [prices, volumes] = await Promise.all([
        listLatestPrices(services.db),
        primaryVolumesSince(services.db, services.clock() - 86_400_000),
      ]);
      // The spec makes these JSON numbers: the one place decimal strings become floats.
      return prices.map((price): TickerView => {
        const volume = volumes.get(price.symbol);
        return {
          tickerId: `${price.symbol}_${SETTLEMENT_TOKEN}`,
          baseCurrency: price.symbol,
          targetCurrency: SETTLEMENT_TOKEN,
          lastPrice: Number(price.tokenPrice),
          baseVolume: Number(volume?.baseVolume ?? 0),
          targetVolume: Number(volume?.targetVolume ?? 0),
        };
      });
    });
  };
}
