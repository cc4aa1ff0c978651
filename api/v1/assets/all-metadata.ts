/** GET /v1/assets/all/metadata — every token's identifiers, classification tags and contract addresses. */
import { z } from 'zod';
import { listAddresses } from '../../../db/queries/assets';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { assetMetadataSchema, type AssetMetadata } from './schemas';
import { addressEntryViews } from './views';

export const allMetadataOperation = defineOperation({
  method: 'get',
  path: '/v1/assets/all/metadata',
  operationId: 'listAssetMetadata',
  summary: "Every token's metadata",
  description:
    "Each token's symbol and ticker, its listing ids on CoinGecko and CoinMarketCap (null: not listed there), its contract on each chain, and its classification: `assetClass` `equities`, `instrumentType` the catalogue's kind (`stock`, `etf`, `portfolio`).",
  access: 'read',
  answers: { 200: { description: 'One entry per token, in symbol order.', schema: z.array(assetMetadataSchema) } },
  errors: [],
  handler: (services) => async (ctx) => {
    await respondCached(ctx, services, { tag: 'catalogue', key: 'metadata:all', ttlMs: 300_000 }, async (): Promise<AssetMetadata[]> => {
      const [assets, addresses] = await Promise.all([services.assets.all(), listAddresses(services.db)]);
      const bySymbol = new Map(addressEntryViews(addresses).map((entry) => [entry.symbol, entry.addresses]));
      return assets.map((asset) => ({
        symbol: asset.symbol,
        ticker: asset.ticker,
        coingeckoId: null,
        coinmarketcapId: null,
        addresses: bySymbol.get(asset.symbol) ?? [],
        tags: { assetClass: 'equities', instrumentType: asset.kind },
      }));
    });
  },
});
