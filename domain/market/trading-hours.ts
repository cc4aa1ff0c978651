/**
 * When an asset's underlying and its token trade, and the "effective time" of a price: the instant
 * whose price holds at `t`. While a market is closed its price stays where it was at the last open
 * instant, so every price lookup first maps `t` to that instant. Session intervals are cached, so
 * sequential lookups (a backfill walking through time) cost O(1).
 */
import { type Session, type SessionInterval, isConventionalSession, sessionIntervalAt } from '../calendar';
import { type AssetDefinition, type TradingSession } from '../catalogue/types';

/** The part of an asset that decides when it trades (an AssetDefinition or a database record of one). */
export interface MarketHours {
  tradableSessions: readonly TradingSession[];
  tradableOffhours: boolean;
}

/** The underlying trades in the asset's tradable sessions (overnight only where listed), never off-hours nor in a transition pause. */
export function isUnderlyingOpen(asset: MarketHours, session: Session): boolean {
  return isConventionalSession(session) && asset.tradableSessions.includes(session);
}

/**
 * The token trades with its underlying, and around the clock if it is tradable off-hours: its price keeps
 * moving through the transition pauses too (the off-hours track), though no attestation is issued in one.
 */
export function isTokenOpen(asset: MarketHours, session: Session): boolean {
  return asset.tradableOffhours || isUnderlyingOpen(asset, session);
}

/** Which market of an asset: its on-chain token (`primary`) or the stock/fund behind it. */
export type MarketSide = 'primary' | 'underlying';

/** Whether `side` of `asset` trades during `session`. */
export function isMarketOpen(asset: MarketHours, side: MarketSide, session: Session): boolean {
  return side === 'primary' ? isTokenOpen(asset, session) : isUnderlyingOpen(asset, session);
}

const recentIntervals: SessionInterval[] = [];
const RECENT_INTERVALS = 8;

/** `sessionIntervalAt` with a small most-recently-used cache (price paths revisit the same sessions). */
export function cachedSessionInterval(t: number): SessionInterval {
  for (let i = 0; i < recentIntervals.length; i++) {
    const interval = recentIntervals[i] as SessionInterval;
    if (t >= interval.start && t < interval.end) {
      if (i > 0) {
        recentIntervals.splice(i, 1);
        recentIntervals.unshift(interval);
      }
      return interval;
    }
  }
  const interval = sessionIntervalAt(t);
  recentIntervals.unshift(interval);
  if (recentIntervals.length > RECENT_INTERVALS) recentIntervals.pop();
  return interval;
}

/** A closed stretch never spans more session intervals than this (a long holiday weekend spans a few). */
const MAX_CLOSED_INTERVALS = 64;
const MAX_LAST_OPEN_ENTRIES = 20_000;

/** A set of open sessions, with memoised "last open instant" per closed interval start. */
export interface OpenSchedule {
  isOpen: (session: Session) => boolean;
  lastOpenByClosedStart: Map<number, number>;
}

/** An {@link OpenSchedule} for the sessions `isOpen` accepts. */
export function openSchedule(isOpen: (session: Session) => boolean): OpenSchedule {
  return { isOpen, lastOpenByClosedStart: new Map() };
}

/**
 * The instant whose price holds at `t` for a market open on `schedule`: `t` itself while open,
 * otherwise the end of the last open interval before `t`.
 */
export function effectiveTime(t: number, schedule: OpenSchedule): number {
  const interval = cachedSessionInterval(t);
  if (schedule.isOpen(interval.session)) return t;
  const memo = schedule.lastOpenByClosedStart;
  const cached = memo.get(interval.start);
  if (cached !== undefined) return cached;
  let cursor = interval;
  for (let steps = 0; steps < MAX_CLOSED_INTERVALS; steps++) {
    cursor = cachedSessionInterval(cursor.start - 1);
    if (schedule.isOpen(cursor.session)) {
      if (memo.size >= MAX_LAST_OPEN_ENTRIES) memo.clear();
      memo.set(interval.start, cursor.end);
      return cursor.end;
    }
  }
  throw new Error(`no open session within ${MAX_CLOSED_INTERVALS} sessions before ${new Date(t).toISOString()}`);
}

interface AssetSchedules {
  underlying: OpenSchedule;
  token: OpenSchedule;
}
const schedulesByAsset = new WeakMap<AssetDefinition, AssetSchedules>();

function schedulesOf(asset: AssetDefinition): AssetSchedules {
  let schedules = schedulesByAsset.get(asset);
  if (schedules === undefined) {
    schedules = {
      underlying: openSchedule((session) => isUnderlyingOpen(asset, session)),
      token: openSchedule((session) => isTokenOpen(asset, session)),
    };
    schedulesByAsset.set(asset, schedules);
  }
  return schedules;
}

/** Effective time of `t` for the underlying of `asset` (see {@link effectiveTime}). */
export function underlyingEffectiveTime(asset: AssetDefinition, t: number): number {
  return effectiveTime(t, schedulesOf(asset).underlying);
}

/** Effective time of `t` for the token of `asset`: `t` itself for tokens that trade around the clock. */
export function tokenEffectiveTime(asset: AssetDefinition, t: number): number {
  if (asset.tradableOffhours) return t;
  return effectiveTime(t, schedulesOf(asset).token);
}
