/** GET /v1/assets/{symbol}/addresses — one token's contract addresses, shaped as an element of the all-addresses list. */
import type { Middleware } from 'koa';
import { listAddresses } from '../../../db/queries/assets';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';
import { addressEntryViews } from './views';

export function assetAddressesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(parseParams(symbolParams, ctx.params, SYMBOL_PARAM_CODES).symbol);
    await respondCached(ctx, services, { tag: 'catalogue', key: `addresses:${asset.symbol}`, ttlMs: 60_000 }, async () => {
      return addressEntryViews(await listAddresses(services.db, asset.symbol))[0] ?? { symbol: asset.symbol, addresses: [] };
    });
  };
}
