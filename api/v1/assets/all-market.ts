/** GET /v1/assets/all/market — the market data of every asset, as GET /v1/assets/{symbol}/market gives each. */
import { z } from 'zod';
import { listLatestPrices } from '../../../db/queries/latest-prices';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { marketDataOf } from './market-data';
import { marketDataSchema, type MarketData } from './schemas';

export const allMarketDataOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/all/market',
  operationId: 'listMarketData',
  summary: 'Market data of every asset',
  description: "Each asset's market data as `GET /v1/assets/{symbol}/market` answers it: the token's price, 24-hour change and history, holders, multiplier and sessions, and the underlying's statistics.",
  access: 'read',
  answers: { 200: { description: 'One entry per asset with a price, in symbol order.', schema: z.array(marketDataSchema) } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'prices', key: 'market:all', ttlMs: 60_000 }, async (): Promise<MarketData[]> => {
      const [assets, prices] = await Promise.all([services.assets.all(), listLatestPrices(services.db)]);
      const priced = new Set(prices.map((price) => price.symbol));
      return Promise.all(assets.filter((asset) => priced.has(asset.symbol)).map((asset) => marketDataOf(services, asset)));
    });
  },
});
