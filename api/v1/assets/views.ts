/** JSON shapes of the assets resource built from database records (prices and candles: domain/market/views.ts). */
import type { AddressRecord } from '../../../db/queries/assets';
import type { AddressEntry } from './schemas';

/** Address records (ordered by symbol) as one entry per symbol. */
export function addressEntryViews(records: AddressRecord[]): AddressEntry[] {
  const entries = new Map<string, AddressEntry>();
  for (const { symbol, networkChainId, address, decimals } of records) {
    const entry = entries.get(symbol) ?? { symbol, addresses: [] };
    entry.addresses.push({ networkChainId, address, decimals });
    entries.set(symbol, entry);
  }
  return [...entries.values()];
}

