/** GET /v1/assets/{symbol}/addresses — one token's contract addresses, shaped as an element of the all-addresses list. */
import { listAddresses } from '../../../db/queries/assets';
import { SYMBOL_PARAM_CODES, symbolParams } from '../../framework/path-params';
import { respondCached } from '../respond';
import { addressEntryViews } from './views';
import { defineOperation } from '../../contract/operation';
import { addressEntrySchema, type AddressEntry } from './schemas';

export const assetAddressesOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/{symbol}/addresses',
  operationId: 'getContractAddresses',
  summary: "One token's contract addresses",
  access: 'read',
  params: symbolParams,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'The token with its contract on each chain (an element of the all-addresses list).', schema: addressEntrySchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params }) => {
    const asset = await services.assets.resolve(params.symbol);
    await respondCached(ctx, services, { tag: 'catalogue', key: `addresses:${asset.symbol}`, ttlMs: 60_000 }, async (): Promise<AddressEntry> => {
      return addressEntryViews(await listAddresses(services.db, asset.symbol))[0] ?? { symbol: asset.symbol, addresses: [] };
    });
  },
});
