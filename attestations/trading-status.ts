/**
 * Whether an asset can be traded right now, and under which session limits: the calendar session,
 * the operator's market pause, the asset's active status events, and the asset's limits for the
 * session. Shared by attestations, soft quotes and trading limits.
 *
 * A transition pause between two sessions (domain/calendar) is on the off-hours track: an asset that
 * trades off-hours trades through it on its off-hours limits; every other asset meets `MARKET_PAUSED`.
 */
import type { AssetRecord } from '../db/queries/assets';
import { quoteContext, type QuoteContextRecord } from '../db/queries/attestations';
import type { Queryable } from '../db/pool';
import type { SessionLimitRecord } from '../db/queries/session-limits';
import { limitsSessionOf, sessionIntervalAt, type LimitedSession, type SessionInterval } from '../domain/calendar';
import { DEFAULT_CHAIN } from '../domain/chains';
import { transitionPauseMessage } from '../domain/market-status';

export type RestrictionCode = 'MARKET_PAUSED' | 'ASSET_PAUSED' | 'MARKET_CLOSED' | 'ASSET_CLOSED_FOR_SESSION';

export interface Restriction {
  code: RestrictionCode;
  message: string;
}

export interface TradingStatus {
  /** The session whose limits apply (`offhours` in a transition pause). */
  session: LimitedSession;
  /** When the running session started (epoch ms): session notional counts from here. */
  sessionStartedAt: number;
  sessionLimit: SessionLimitRecord;
  /** Why the asset cannot be traded now, if it cannot. */
  restriction?: Restriction;
  /** An ASSET_LIMITED event is active: orders are capped at the limited order size. */
  limited: boolean;
  /** An ASSET_REDEEM_ONLY event is active: sells only, buys refused. */
  redeemOnly: boolean;
}

/** The trading status an asset's quote context implies in the session `interval`. */
export function statusFromContext(asset: AssetRecord, interval: SessionInterval, context: QuoteContextRecord): TradingStatus {
  const session = limitsSessionOf(interval.session);
  const sessionLimit: SessionLimitRecord = {
    symbol: asset.symbol,
    session,
    tradable: context.tradable ?? false,
    maxAttestationCount: context.maxAttestationCount ?? 0,
    maxActiveNotionalValue: context.maxActiveNotionalValue ?? '0',
    maxSessionNotionalValue: context.maxSessionNotionalValue ?? '0',
  };
  const paused = context.activeEvents.find((event) => event.code === 'ASSET_PAUSED');
  let restriction: Restriction | undefined;
  if (context.marketPaused) {
    restriction = { code: 'MARKET_PAUSED', message: `Trading is paused: ${context.marketPauseReason ?? 'market paused by the operator'}` };
  } else if (paused) restriction = { code: 'ASSET_PAUSED', message: `Trading of ${asset.symbol} is paused: ${paused.reason}` };
  else if (interval.session === 'paused' && !sessionLimit.tradable) restriction = { code: 'MARKET_PAUSED', message: transitionPauseMessage(interval) };
  else if (interval.session === 'offhours' && !sessionLimit.tradable) restriction = { code: 'MARKET_CLOSED', message: 'The market is closed' };
  else if (!sessionLimit.tradable) {
    restriction = { code: 'ASSET_CLOSED_FOR_SESSION', message: `${asset.symbol} does not trade in the ${interval.session} session` };
  }
  return {
    session,
    sessionStartedAt: interval.start,
    sessionLimit,
    restriction,
    limited: context.activeEvents.some((event) => event.code === 'ASSET_LIMITED'),
    redeemOnly: context.activeEvents.some((event) => event.code === 'ASSET_REDEEM_ONLY'),
  };
}

/** The asset's trading status at `now`, with the rest of its quote context (price, pricing, address on `chain`). */
export async function loadTradingStatus(
  db: Queryable,
  asset: AssetRecord,
  now: number,
  chain: string = DEFAULT_CHAIN,
): Promise<{ status: TradingStatus; context: QuoteContextRecord }> {
  const interval = sessionIntervalAt(now);
  const context = await quoteContext(db, { symbol: asset.symbol, session: limitsSessionOf(interval.session), chain, now });
  return { status: statusFromContext(asset, interval, context), context };
}
