/** GET /v1/assets/{symbol}/addresses — one token's contract addresses, shaped as an element of the all-addresses list. */
import type { Middleware } from 'koa';
import { listAddresses } from '../../../db/queries/assets';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';
import { addressEntryViews } from './views';
import { defineOperation } from '../../contract/operation';
import { addressEntrySchema, type AddressEntry } from './schemas';

function assetAddressesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(parseParams(symbolParams, ctx.params, SYMBOL_PARAM_CODES).symbol);
    await respondCached(ctx, services, { tag: 'catalogue', key: `addresses:${asset.symbol}`, ttlMs: 60_000 }, async (): Promise<AddressEntry> => {
      return addressEntryViews(await listAddresses(services.db, asset.symbol))[0] ?? { symbol: asset.symbol, addresses: [] };
    });
  };
}

export const assetAddressesOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/addresses',
  operationId: 'getContractAddresses',
  summary: "One token's contract addresses",
  access: 'read',
  params: symbolParams,
  answers: { 200: { description: 'The token with its contract on each chain (an element of the all-addresses list).', schema: addressEntrySchema } },
  errors: ['INVALID_SYMBOL', 'ASSET_NOT_FOUND'],
  handler: assetAddressesRoute,
});
