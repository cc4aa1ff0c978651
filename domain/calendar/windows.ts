/**
 * Market-hours-aware time windows: how much "open" time lies in a range, and where a window holding
 * a given amount of open time must start. "Open" is whatever set of sessions the caller passes, e.g.
 * an asset's tradable sessions for a market-hours-aware 24 h change.
 */

import { type Session, sessionIntervalAt } from './sessions';
import { DAY_MS, assertFiniteTime } from './timezone';

/** openWindowStart walks back at most this far beyond `now - durationMs` looking for open time. */
export const OPEN_WINDOW_MAX_LOOKBACK_MS = 366 * DAY_MS;

/**
 * Start of the window that holds the most recent `durationMs` of time during which `isOpen(session)`
 * holds, ending at `now` (walks back through sessions). Returns `now - durationMs` when everything is
 * open and `now` when `durationMs <= 0`. If that much open time does not exist within
 * {@link OPEN_WINDOW_MAX_LOOKBACK_MS} before `now - durationMs`, returns the far end of that lookback.
 * Otherwise the result lies inside an open interval or at its start, never inside closed time.
 */
export function openWindowStart(now: number, durationMs: number, isOpen: (s: Session) => boolean): number {
  assertFiniteTime(now, 'now');
  assertFiniteTime(durationMs, 'durationMs');
  if (durationMs <= 0) return now;
  const limit = now - durationMs - OPEN_WINDOW_MAX_LOOKBACK_MS;
  let remaining = durationMs;
  let cursor = now;
  while (cursor > limit) {
    const interval = sessionIntervalAt(cursor - 1);
    const start = Math.max(interval.start, limit);
    if (isOpen(interval.session)) {
      const open = cursor - start;
      if (open >= remaining) return cursor - remaining;
      remaining -= open;
    }
    cursor = start;
  }
  return limit;
}

/** Total open time (ms) within [from, to) for sessions accepted by `isOpen`; 0 when `to <= from`. */
export function openTimeBetween(from: number, to: number, isOpen: (s: Session) => boolean): number {
  assertFiniteTime(from, 'from');
  assertFiniteTime(to, 'to');
  let total = 0;
  let cursor = from;
  while (cursor < to) {
    const interval = sessionIntervalAt(cursor);
    const end = Math.min(interval.end, to);
    if (isOpen(interval.session)) total += end - cursor;
    cursor = end;
  }
  return total;
}
