/** Reads of the token catalogue: assets and their contract addresses. */
import type { Queryable } from '../pool';

export type TradingSession = 'premarket' | 'regular' | 'postmarket' | 'overnight';

export interface AssetRecord {
  symbol: string;
  ticker: string;
  name: string;
  kind: 'stock' | 'etf' | 'portfolio';
  tradableSessions: TradingSession[];
  tradableOffhours: boolean;
  listedAt: number;
  sharesOutstanding: string;
  averageVolume: string;
  holders: number;
  constituents: { symbol: string; units: string }[];
}

export interface AddressRecord {
  symbol: string;
  networkChainId: string;
  address: string;
  decimals: number;
}

/** Every asset, ordered by symbol. */
export async function listAssets(db: Queryable): Promise<AssetRecord[]> {
  const { rows } = await db.query<AssetRecord>(
    `SELECT symbol, ticker, name, kind, tradable_sessions AS "tradableSessions", tradable_offhours AS "tradableOffhours",
            listed_at AS "listedAt", shares_outstanding::text AS "sharesOutstanding", average_volume::text AS "averageVolume",
            holders, constituents
       FROM assets ORDER BY symbol`,
  );
  return rows;
}

/** Contract addresses, optionally of one asset, ordered by symbol then network. */
export async function listAddresses(db: Queryable, symbol?: string): Promise<AddressRecord[]> {
  const { rows } = await db.query<AddressRecord>(
    `SELECT symbol, network_chain_id AS "networkChainId", address, decimals
       FROM asset_addresses WHERE $1::text IS NULL OR symbol = $1
      ORDER BY symbol, network_chain_id`,
    [symbol ?? null],
  );
  return rows;
}
