/**
 * The token catalogue: every asset the platform issues, with its derived contract addresses, and
 * lookup by symbol. Pure data; the seeding of the database reads it from here.
 */
import { tokenAddresses } from './addresses';
import { ASSET_DATA } from './assets';
import { type AssetDefinition } from './types';

export type { AssetDefinition, Constituent, Dividend, Split, TradingSession } from './types';
export { solanaMintAddress } from './addresses';

/** Every catalogue asset, single assets before the portfolios built from them. */
export const CATALOGUE: readonly AssetDefinition[] = Object.freeze(
  ASSET_DATA.map((data) => Object.freeze({ ...data, addresses: Object.freeze(tokenAddresses(data.symbol)) })),
);

const bySymbol = new Map(CATALOGUE.map((asset) => [asset.symbol, asset]));

/** The asset with exactly this symbol (case-sensitive, e.g. `AAPLon`), if the catalogue has it. */
export function findAsset(symbol: string): AssetDefinition | undefined {
  return bySymbol.get(symbol);
}
