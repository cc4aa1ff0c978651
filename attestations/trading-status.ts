/**
 * Whether an asset can be traded right now, and under which session limits: the calendar session,
 * the operator's market pause, the asset's active status events, and the asset's limits for the
 * session. Shared by attestations, soft quotes and trading limits.
 */
import type { AssetRecord } from '../db/queries/assets';
import type { Queryable } from '../db/pool';
import { findSessionLimit, type SessionLimitRecord } from '../db/queries/session-limits';
import { getMarketState, listCurrentAssetEvents } from '../db/queries/status';
import { sessionIntervalAt, type Session } from '../domain/calendar';

export type RestrictionCode = 'MARKET_PAUSED' | 'ASSET_PAUSED' | 'MARKET_CLOSED' | 'ASSET_CLOSED_FOR_SESSION';

export interface Restriction {
  code: RestrictionCode;
  message: string;
}

export interface TradingStatus {
  session: Session;
  /** When the running session started (epoch ms): session notional counts from here. */
  sessionStartedAt: number;
  sessionLimit: SessionLimitRecord;
  /** Why the asset cannot be traded now, if it cannot. */
  restriction?: Restriction;
  /** An ASSET_LIMITED event is active: orders are capped at the limited order size. */
  limited: boolean;
}

const CLOSED: Omit<SessionLimitRecord, 'symbol' | 'session'> = {
  tradable: false,
  maxAttestationCount: 0,
  maxActiveNotionalValue: '0',
  maxSessionNotionalValue: '0',
};

export async function tradingStatus(db: Queryable, asset: AssetRecord, now: number): Promise<TradingStatus> {
  const interval = sessionIntervalAt(now);
  const [market, events, limit] = await Promise.all([
    getMarketState(db),
    listCurrentAssetEvents(db, now, asset.symbol),
    findSessionLimit(db, asset.symbol, interval.session),
  ]);
  const active = events.filter((event) => event.startsAt <= now);
  const paused = active.find((event) => event.code === 'ASSET_PAUSED');
  const sessionLimit = limit ?? { symbol: asset.symbol, session: interval.session, ...CLOSED };
  let restriction: Restriction | undefined;
  if (market.paused) restriction = { code: 'MARKET_PAUSED', message: `Trading is paused: ${market.reason ?? 'market paused by the operator'}` };
  else if (paused) restriction = { code: 'ASSET_PAUSED', message: `Trading of ${asset.symbol} is paused: ${paused.reason}` };
  else if (interval.session === 'offhours' && !sessionLimit.tradable) restriction = { code: 'MARKET_CLOSED', message: 'The market is closed' };
  else if (!sessionLimit.tradable) {
    restriction = { code: 'ASSET_CLOSED_FOR_SESSION', message: `${asset.symbol} does not trade in the ${interval.session} session` };
  }
  return {
    session: interval.session,
    sessionStartedAt: interval.start,
    sessionLimit,
    restriction,
    limited: active.some((event) => event.code === 'ASSET_LIMITED'),
  };
}
