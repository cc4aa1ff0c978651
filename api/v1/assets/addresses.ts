/** GET /v1/assets/all/addresses and GET /v1/assets/{symbol}/addresses — token contract addresses per chain. */
import type { Middleware } from 'koa';
import { listAddresses, type AddressRecord } from '../../../db/queries/assets';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';

export interface AddressEntryView {
  symbol: string;
  addresses: { networkChainId: string; address: string; decimals: number }[];
}

function groupBySymbol(records: AddressRecord[]): AddressEntryView[] {
  const entries = new Map<string, AddressEntryView>();
  for (const { symbol, networkChainId, address, decimals } of records) {
    const entry = entries.get(symbol) ?? { symbol, addresses: [] };
    entry.addresses.push({ networkChainId, address, decimals });
    entries.set(symbol, entry);
  }
  return [...entries.values()];
}

export function allAddressesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    await respondCached(ctx, services, { tag: 'catalogue', key: 'addresses:all', ttlMs: 60_000 }, async () =>
      groupBySymbol(await listAddresses(services.db)),
    );
  };
}

/** One entry in the same shape as an element of the all-addresses list. */
export function assetAddressesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(ctx.params.symbol);
    await respondCached(ctx, services, { tag: 'catalogue', key: `addresses:${asset.symbol}`, ttlMs: 60_000 }, async () => {
      return groupBySymbol(await listAddresses(services.db, asset.symbol))[0] ?? { symbol: asset.symbol, addresses: [] };
    });
  };
}
