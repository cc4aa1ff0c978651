/**
 * The market status clients poll before trading: the calendar's session at a moment, overridden
 * by an operator's market-wide pause. Pure: the caller supplies the time and the pause state.
 */
import { holidayName, newYorkDate, nextSession, sessionIntervalAt, type Session } from './calendar';

export type MarketStatusName = Session | 'paused';

export interface MarketStatus {
  timestamp: number;
  /** A trading session is running and the market is not paused. */
  isOpen: boolean;
  marketStatus: MarketStatusName;
  /** The session that starts next (after the current one). */
  nextOpenSession: Session | null;
  /** When that session starts, epoch ms. */
  nextOpen: number | null;
  /** When the current session ends if one is running, otherwise when the next one ends; epoch ms. */
  nextClose: number | null;
  /** Why the market is not open: MARKET_PAUSED (operator) or MARKET_CLOSED (off-hours). */
  reason: { code: 'MARKET_PAUSED' | 'MARKET_CLOSED'; message: string } | null;
}

const isTradingSession = (session: Session): boolean => session !== 'offhours';

function closedMessage(now: number): string {
  const date = newYorkDate(now);
  const holiday = holidayName(date);
  if (holiday) return `Market closed: ${holiday}`;
  const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
  return weekday === 0 || weekday === 6 ? 'Market closed for the weekend' : 'Market closed: no session is running';
}

export function marketStatus(now: number, pause: { paused: boolean; reason: string | null }): MarketStatus {
  const current = sessionIntervalAt(now);
  const next = nextSession(now, isTradingSession);
  const running = isTradingSession(current.session);
  let reason: MarketStatus['reason'] = null;
  if (pause.paused) reason = { code: 'MARKET_PAUSED', message: pause.reason ?? 'Trading is paused by the operator' };
  else if (!running) reason = { code: 'MARKET_CLOSED', message: closedMessage(now) };
  return {
    timestamp: now,
    isOpen: running && !pause.paused,
    marketStatus: pause.paused ? 'paused' : current.session,
    nextOpenSession: next?.session ?? null,
    nextOpen: next?.start ?? null,
    nextClose: running ? current.end : (next?.end ?? null),
    reason,
  };
}
