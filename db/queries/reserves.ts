/**
 * Proof of reserves in SQL: what is in flight between the tokens on chain and the shares at the broker (partner
 * redemptions and mints under way), the stored snapshots, the assets whose attestation minting is paused because
 * they are short, and whether a hedge must wait (the market paused by an operator, the asset paused by one or for a dividend).
 */
import type { Queryable } from '../pool';
import { currentAssetEventsSql } from './operator-controls';

/** Why hedges of `underlying` wait now (the market paused by an operator, the asset paused by one or for a dividend), if they do. */
export async function hedgeHold(db: Queryable, underlying: string, now: number = Date.now()): Promise<string | undefined> {
  const { rows } = await db.query<{ market_paused: boolean; market_reason: string | null; asset_reason: string | null }>(
    `SELECT m.paused AS market_paused, m.reason AS market_reason,
            (SELECT e.reason FROM ${currentAssetEventsSql('$2')} AS e JOIN assets a USING (symbol)
              WHERE a.ticker = $1 AND e.code = 'ASSET_PAUSED' AND e.starts_at <= $2 LIMIT 1) AS asset_reason
       FROM market_state m`,
    [underlying, now],
  );
  const state = rows[0];
  if (state?.market_paused) return `the market is paused: ${state.market_reason ?? 'by the operator'}`;
  if (state?.asset_reason) return `${underlying} is paused: ${state.asset_reason}`;
  return undefined;
}

/** A partner request between the broker and the chain: shares (mint) or token base units (redeem) in flight. */
export interface PartnerInFlight {
  tokenSymbol: string;
  kind: 'mint' | 'redeem';
  qty: string | null;
  tokenAmount: string | null;
  chain: string;
  /** A mint's transaction, once sent: whether its tokens are in a supply read depends on the block it is in. */
  txHash: `0x${string}` | null;
}

/**
 * Partner requests between the broker and the chain: redemptions burnt and not yet delivered, and mints whose shares
 * arrived and whose tokens are not minted or not final yet (`minted` is written once the mint is final, which may be
 * before or after the watcher's final block passes it).
 */
export async function partnerInFlight(db: Queryable): Promise<PartnerInFlight[]> {
  const { rows } = await db.query<PartnerInFlight>(
    `SELECT token_symbol AS "tokenSymbol", kind, qty::text, token_amount::text AS "tokenAmount", chain, tx_hash AS "txHash" FROM partner_requests
      WHERE (kind = 'mint' AND state IN ('confirmed', 'needs_review', 'minted') AND confirm_status IS DISTINCT FROM 'rejected')
         OR (kind = 'redeem' AND state IN ('pending', 'needs_review', 'delivering'))`,
  );
  return rows;
}

export interface ReserveAsset {
  underlying: string;
  symbol: string;
  sharesMultiplier: string;
  tokens: { total: string; byChain: Record<string, string>; blocks: Record<string, number> };
  sharesRequired: string;
  sharesHeld: string;
  inFlight: { hedges: string; redemptions: string; partnerMints: string };
  /** What is under review (hedges rejected for good): owed and not in flight. */
  review: string;
  shortfall: string;
  coverage: string;
  status: 'covered' | 'short';
}

export async function insertReserveSnapshots(db: Queryable, takenAt: number, assets: ReserveAsset[]): Promise<void> {
  await db.query(
    `INSERT INTO reserve_snapshots (taken_at, symbol, underlying, status, snapshot)
     SELECT $1, a->>'symbol', a->>'underlying', a->>'status', a FROM jsonb_array_elements($2::jsonb) a
     ON CONFLICT DO NOTHING`,
    [takenAt, JSON.stringify(assets)],
  );
}

/** The last computation: its time and every asset in it. */
export async function latestReserveSnapshot(db: Queryable): Promise<{ takenAt: number; assets: ReserveAsset[] } | undefined> {
  const { rows } = await db.query<{ takenAt: string; snapshot: ReserveAsset }>(
    `SELECT taken_at::text AS "takenAt", snapshot FROM reserve_snapshots WHERE taken_at = (SELECT max(taken_at) FROM reserve_snapshots) ORDER BY underlying`,
  );
  if (rows.length === 0) return undefined;
  return { takenAt: Number(rows[0]!.takenAt), assets: rows.map((row) => row.snapshot) };
}

export async function reserveHistory(db: Queryable, filter: { underlying: string; from: number; to: number; limit: number }): Promise<{ takenAt: number; asset: ReserveAsset }[]> {
  const { rows } = await db.query<{ takenAt: string; snapshot: ReserveAsset }>(
    `SELECT taken_at::text AS "takenAt", snapshot FROM reserve_snapshots WHERE underlying = $1 AND taken_at >= $2 AND taken_at < $3
      ORDER BY taken_at DESC LIMIT $4`,
    [filter.underlying, filter.from, filter.to, filter.limit],
  );
  return rows.map((row) => ({ takenAt: Number(row.takenAt), asset: row.snapshot }));
}

export interface ReservePause {
  symbol: string;
  shortfall: string;
  since: number;
  reason: string;
}

/**
 * Pauses attestation minting of the `short` assets (kept as first paused, the shortfall updated) and resumes every
 * other one. Answers the symbols newly paused and resumed.
 */
export async function applyReservePauses(db: Queryable, short: { symbol: string; shortfall: string; reason: string }[], now: number): Promise<{ paused: string[]; resumed: string[] }> {
  const { rows } = await db.query<{ symbol: string; change: 'paused' | 'resumed' }>(
    `WITH short AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(symbol text, shortfall numeric, reason text)),
     resumed AS (DELETE FROM reserve_pauses p WHERE NOT EXISTS (SELECT 1 FROM short s WHERE s.symbol = p.symbol) RETURNING p.symbol),
     paused AS (
       INSERT INTO reserve_pauses (symbol, shortfall, since, reason) SELECT symbol, shortfall, $2, reason FROM short
       ON CONFLICT (symbol) DO UPDATE SET shortfall = EXCLUDED.shortfall, reason = EXCLUDED.reason
       RETURNING symbol, xmax = 0 AS inserted
     )
     SELECT symbol, 'resumed' AS change FROM resumed UNION ALL SELECT symbol, 'paused' FROM paused WHERE inserted`,
    [JSON.stringify(short), now],
  );
  return { paused: rows.filter((row) => row.change === 'paused').map((row) => row.symbol), resumed: rows.filter((row) => row.change === 'resumed').map((row) => row.symbol) };
}

export async function listReservePauses(db: Queryable): Promise<ReservePause[]> {
  const { rows } = await db.query<ReservePause>(
    `SELECT symbol, trim_scale(shortfall)::text AS shortfall, since::float8 AS since, reason FROM reserve_pauses ORDER BY symbol`,
  );
  return rows;
}
