/**
 * Seeds the catalogue into PostgreSQL: assets, contract addresses, shares-multiplier history,
 * dividends and default session limits. Idempotent: catalogue rows are upserted, while limits an
 * operator edited are kept.
 */
import { CATALOGUE, type AssetDefinition } from '../domain/catalogue';
import { tokenDecimals } from '../domain/chains';
import { multiplierHistory } from '../domain/market/multiplier';
import { newYorkTime } from '../domain/calendar';
import type { Database } from './pool';
import { insertDefaultSessionLimits, type LimitSession, type SessionLimitRecord } from './queries/session-limits';

/** Multiplier history is seeded this far ahead, so scheduled changes take effect as time passes. */
const MULTIPLIER_HORIZON_MS = 3 * 365 * 86_400_000;

/** Default per-user maximums: notional in USD, count of outstanding attestations. */
const DEFAULT_LIMITS: Record<LimitSession, { maxAttestationCount: number; maxActiveNotionalValue: string; maxSessionNotionalValue: string }> = {
  premarket: { maxAttestationCount: 10, maxActiveNotionalValue: '100000', maxSessionNotionalValue: '400000' },
  regular: { maxAttestationCount: 20, maxActiveNotionalValue: '250000', maxSessionNotionalValue: '1000000' },
  postmarket: { maxAttestationCount: 10, maxActiveNotionalValue: '100000', maxSessionNotionalValue: '400000' },
  overnight: { maxAttestationCount: 5, maxActiveNotionalValue: '50000', maxSessionNotionalValue: '200000' },
  offhours: { maxAttestationCount: 5, maxActiveNotionalValue: '25000', maxSessionNotionalValue: '100000' },
};

/** Default pricing by kind: spreads in basis points around mid, validity in seconds. */
const DEFAULT_PRICING: Record<AssetDefinition['kind'], { short: [number, number]; long: [number, number] }> = {
  stock: { short: [10, 30], long: [25, 300] },
  etf: { short: [5, 30], long: [15, 300] },
  portfolio: { short: [15, 30], long: [35, 300] },
};

export function defaultSessionLimits(asset: AssetDefinition): SessionLimitRecord[] {
  return (Object.keys(DEFAULT_LIMITS) as LimitSession[]).map((session) => {
    const tradable = session === 'offhours' ? asset.tradableOffhours : asset.tradableSessions.includes(session);
    return tradable
      ? { symbol: asset.symbol, session, tradable, ...DEFAULT_LIMITS[session] }
      : { symbol: asset.symbol, session, tradable, maxAttestationCount: 0, maxActiveNotionalValue: '0', maxSessionNotionalValue: '0' };
  });
}

async function seedAsset(db: Database, asset: AssetDefinition, now: number): Promise<void> {
  await db.query(
    `INSERT INTO assets (symbol, ticker, name, kind, tradable_sessions, tradable_offhours, listed_at, shares_outstanding,
                         average_volume, holders, constituents)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (symbol) DO UPDATE SET ticker = EXCLUDED.ticker, name = EXCLUDED.name, kind = EXCLUDED.kind,
       tradable_sessions = EXCLUDED.tradable_sessions, tradable_offhours = EXCLUDED.tradable_offhours,
       listed_at = EXCLUDED.listed_at, shares_outstanding = EXCLUDED.shares_outstanding,
       average_volume = EXCLUDED.average_volume, holders = EXCLUDED.holders, constituents = EXCLUDED.constituents`,
    [
      asset.symbol,
      asset.ticker,
      asset.name,
      asset.kind,
      asset.tradableSessions,
      asset.tradableOffhours,
      newYorkTime(asset.listedAt, '00:00'),
      asset.sharesOutstanding,
      asset.averageDailyVolume,
      asset.holders,
      JSON.stringify(asset.constituents),
    ],
  );
  const chains = Object.keys(asset.addresses) as (keyof AssetDefinition['addresses'])[];
  await db.query(
    `INSERT INTO asset_addresses (symbol, network_chain_id, address, decimals)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::integer[])
     ON CONFLICT (symbol, network_chain_id) DO NOTHING`,
    [asset.symbol, chains, chains.map((chain) => asset.addresses[chain]), chains.map(tokenDecimals)],
  );
  const history = multiplierHistory(asset, now + MULTIPLIER_HORIZON_MS);
  await db.query(
    `INSERT INTO shares_multiplier_changes (symbol, changed_at, shares_multiplier, reason)
     SELECT $1, * FROM unnest($2::bigint[], $3::numeric[], $4::text[])
     ON CONFLICT (symbol, changed_at) DO UPDATE SET shares_multiplier = EXCLUDED.shares_multiplier, reason = EXCLUDED.reason`,
    [asset.symbol, history.map((h) => h.changeTimestamp), history.map((h) => h.sharesMultiplier), history.map((h) => h.reason)],
  );
  await db.query(
    `INSERT INTO dividends (symbol, ex_date, payment_date, cash_amount)
     SELECT $1, * FROM unnest($2::date[], $3::date[], $4::numeric[])
     ON CONFLICT (symbol, ex_date) DO UPDATE SET payment_date = EXCLUDED.payment_date, cash_amount = EXCLUDED.cash_amount`,
    [
      asset.symbol,
      asset.dividends.map((d) => d.exDate),
      asset.dividends.map((d) => d.paymentDate),
      asset.dividends.map((d) => d.cashAmount),
    ],
  );
  await insertDefaultSessionLimits(db, defaultSessionLimits(asset));
  const pricing = DEFAULT_PRICING[asset.kind];
  await db.query(
    `INSERT INTO asset_pricing (symbol, short_spread_bps, short_ttl_seconds, long_spread_bps, long_ttl_seconds)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (symbol) DO NOTHING`,
    [asset.symbol, ...pricing.short, ...pricing.long],
  );
}

/** Seeds every catalogue asset; returns how many. */
export async function seedCatalogue(db: Database, now: number, assets: readonly AssetDefinition[] = CATALOGUE): Promise<number> {
  for (const asset of assets) await seedAsset(db, asset, now);
  return assets.length;
}
