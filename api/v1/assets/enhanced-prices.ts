/**
 * GET /v1/assets/all/prices/latest/enhanced — latest prices with the change over the last 24 h
 * of open market (a plain 24 h for assets that trade off-hours), sortable by price.
 */
import { listLatestPrices } from '../../../db/queries/latest-prices';
import { windowOpenPrices } from '../../../db/queries/candles';
import { change24h } from '../../../domain/market/statistics';
import { respondCached } from '../respond';
import { sortByPrice, sortQuery } from './sort';
import { windowStart } from './windows';
import { defineOperation } from '../../contract/operation';
import { enhancedPriceSchema, type EnhancedPrice } from './schemas';
import { z } from 'zod';

export const enhancedPricesOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/all/prices/latest/enhanced',
  operationId: 'listEnhancedPrices',
  summary: 'Latest prices with their 24-hour change',
  description: 'The change is over the last 24 hours of open market; for assets that trade off-hours, over a plain 24 hours.',
  access: 'read',
  query: sortQuery,
  fieldCodes: { sort: 'INVALID_SORT' },
  answers: { 200: { description: 'One entry per asset with a price, in symbol order unless sorted.', schema: z.array(enhancedPriceSchema) } },
  errors: [],
  handler: (services) => async (ctx, { query: { sort } }) => {
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
      const views = priced.map((price): EnhancedPrice => {
        const change = change24h(price.tokenPrice, opens.get(price.symbol) ?? price.tokenPrice);
        return { symbol: price.symbol, price: price.tokenPrice, ...change, timestamp: price.observedAt };
      });
      return sortByPrice(views, (view) => view.price, sort);
    });
  },
});
