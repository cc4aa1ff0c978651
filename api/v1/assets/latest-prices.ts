/** GET /v1/assets/all/prices/latest — the latest token and underlying price of every asset. */
import { listLatestPrices } from '../../../db/queries/latest-prices';
import { respondCached } from '../respond';
import { sortByPrice, sortQuery } from './sort';
import { defineOperation } from '../../contract/operation';
import { assetPriceSchema, assetPriceView, type AssetPrice } from '../../../domain/market/views';
import { z } from 'zod';

export const latestPricesOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/all/prices/latest',
  operationId: 'listLatestPrices',
  summary: 'Latest price of every asset',
  access: 'read',
  query: sortQuery,
  fieldCodes: { sort: 'INVALID_SORT' },
  answers: { 200: { description: 'One entry per asset with a price, in symbol order unless sorted.', schema: z.array(assetPriceSchema) } },
  errors: [],
  handler: (services) => async (ctx, { query: { sort } }) => {
    await respondCached(ctx, services, { tag: 'prices', key: `all:${sort ?? ''}`, ttlMs: 1_000 }, async (): Promise<AssetPrice[]> => {
      const [assets, prices] = await Promise.all([services.assets.all(), listLatestPrices(services.db)]);
      const bySymbol = new Map(assets.map((asset) => [asset.symbol, asset]));
      const views = prices.flatMap((price) => {
        const asset = bySymbol.get(price.symbol);
        return asset ? [assetPriceView(asset, price)] : [];
      });
      return sortByPrice(views, (view) => view.primaryMarket.price, sort);
    });
  },
});
