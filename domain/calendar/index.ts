/**
 * US equity session calendar (America/New_York): sessions, NYSE holidays and early closes, and
 * market-hours-aware windows. Pure logic, no I/O.
 */

export {
  DAY_MS,
  addDays,
  dayNumberOf,
  formatDayNumber,
  newYorkDate,
  newYorkDayNumber,
  newYorkOffsetMs,
  newYorkTime,
} from './timezone';
export {
  type CalendarDay,
  SPECIAL_CLOSURES,
  earlyClosesInYear,
  holidayName,
  holidaysInYear,
  isEarlyClose,
  isTradingDay,
} from './holidays';
export {
  type ConventionalSession,
  type LimitedSession,
  type Session,
  type SessionInterval,
  HANDOVER_MARGIN_MINUTES,
  NEXT_SESSION_HORIZON_MS,
  SESSIONS,
  SESSION_MINUTES,
  isConventionalSession,
  limitsSessionOf,
  nextSession,
  sessionAt,
  sessionIntervalAt,
  sessionsBetween,
} from './sessions';
export { OPEN_WINDOW_MAX_LOOKBACK_MS, openTimeBetween, openWindowStart } from './windows';
