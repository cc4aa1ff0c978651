/**
 * GET /v1/assets/all/prices/latest/enhanced — latest prices with the change over the last 24 h
 * of open market (a plain 24 h for assets that trade off-hours), sortable by price.
 */
import type { Middleware } from 'koa';
import { listLatestPrices, windowOpenPrices } from '../../../db/queries/prices';
import { change24h } from '../../../domain/market/statistics';
import { parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';
import { sortByPrice, sortQuery } from './sort';
import { windowStart } from './windows';

export interface EnhancedPriceView {
  symbol: string;
  price: string;
  priceChange24h: string;
  priceChangePct24h: string;
  timestamp: number;
}

export function enhancedPricesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { sort } = parseQuery(sortQuery, ctx.query, { sort: 'INVALID_SORT' });
    await respondCached(ctx, services, { tag: 'prices', key: `enhanced:${sort ?? ''}`, ttlMs: 1_000 }, async () => {
      const now = services.clock();
      const [assets, prices] = await Promise.all([services.assets.all(), listLatestPrices(services.db)]);
      const bySymbol = new Map(assets.map((asset) => [asset.symbol, asset]));
      const priced = prices.filter((price) => bySymbol.has(price.symbol));
      const opens = await windowOpenPrices(
        services.db,
        'primary',
        priced.map((price) => ({ symbol: price.symbol, from: windowStart(bySymbol.get(price.symbol)!, '1day', now) })),
      );
      const views = priced.map((price): EnhancedPriceView => {
        const change = change24h(price.tokenPrice, opens.get(price.symbol) ?? price.tokenPrice);
        return { symbol: price.symbol, price: price.tokenPrice, ...change, timestamp: price.observedAt };
      });
      return sortByPrice(views, (view) => view.price, sort);
    });
  };
}
