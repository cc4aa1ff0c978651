/** GET /v1/assets/{symbol}/prices/latest — the latest price of one asset. */
import { findLatestPrice } from '../../../db/queries/latest-prices';
import { ApiError } from '../../../domain/errors';
import { respondCached } from '../respond';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { assetPriceSchema, assetPriceView } from '../../../domain/market/views';

export const assetPriceOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/prices/latest',
  operationId: 'getAssetPrice',
  summary: 'Latest price of one asset',
  access: 'read',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'The latest token price and the price of its underlying.', schema: assetPriceSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params }) => {
    const asset = await services.assets.resolve(params.symbol);
    await respondCached(ctx, services, { tag: 'prices', key: `one:${asset.symbol}`, ttlMs: 1_000 }, async () => {
      const price = await findLatestPrice(services.db, asset.symbol);
      if (!price) throw new ApiError('ASSET_NOT_FOUND', `No price for ${asset.symbol} yet`);
      return assetPriceView(asset, price);
    });
  },
});
