/**
 * The market status clients poll before trading, as the reference issuer reports it: the conventional
 * sessions (premarket, regular, postmarket, overnight) of the calendar at a moment, `paused` in a
 * transition pause between two of them or while an operator paused the market, `closed` when none runs
 * (weekends, holidays, the evening after an early close); and the off-hours window beside them, a
 * parallel track. Pure: the caller supplies the time and the operator's pause state.
 */
import {
  type ConventionalSession,
  type SessionInterval,
  holidayName,
  isConventionalSession,
  newYorkDate,
  nextSession,
  sessionIntervalAt,
} from './calendar';

export type MarketStatusName = ConventionalSession | 'paused' | 'closed';

/** The off-hours window (weekends, holidays): whether it runs now, and its next opening and closing; epoch ms. */
export interface OffhoursStatus {
  isOpen: boolean;
  /** When the next off-hours window opens (the one after the current one while it runs). */
  nextOpen: number;
  /** When the running off-hours window closes, otherwise when the next one does. */
  nextClose: number;
}

export interface MarketStatus {
  timestamp: number;
  /** A conventional session is running and the market is not paused. */
  isOpen: boolean;
  marketStatus: MarketStatusName;
  /** The conventional session that opens next (after the current one). */
  nextOpenSession: ConventionalSession;
  /** When that session opens, epoch ms. */
  nextOpen: number;
  /** When the running session closes, otherwise when the next one does; epoch ms. */
  nextClose: number;
  offhours: OffhoursStatus;
  /** Why the market is not open: MARKET_PAUSED (an operator, or a transition between sessions) or MARKET_CLOSED. */
  reason: { code: 'MARKET_PAUSED' | 'MARKET_CLOSED'; message: string } | null;
}

const isOffhours = (session: string): boolean => session === 'offhours';

function closedMessage(now: number): string {
  const date = newYorkDate(now);
  const holiday = holidayName(date);
  if (holiday) return `Market closed: ${holiday}`;
  const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
  return weekday === 0 || weekday === 6 ? 'Market closed for the weekend' : 'Market closed: no session is running';
}

/** Why a transition pause stops trading, and until when (New York time). */
export function transitionPauseMessage(pause: SessionInterval): string {
  const until = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(pause.end);
  return `Market paused between sessions until ${until} ET`;
}

/** A session the calendar always has again within its horizon (sessions run every week). */
function required(interval: SessionInterval | undefined, what: string, now: number): SessionInterval {
  if (interval === undefined) throw new Error(`the calendar has no ${what} after ${new Date(now).toISOString()}`);
  return interval;
}

export function marketStatus(now: number, pause: { paused: boolean; reason: string | null }): MarketStatus {
  const current = sessionIntervalAt(now);
  const next = required(nextSession(now, isConventionalSession), 'conventional session', now);
  const running = isConventionalSession(current.session);
  const nextOffhours = required(nextSession(now, isOffhours), 'off-hours window', now);
  const offhoursRunning = isOffhours(current.session);
  let reason: MarketStatus['reason'] = null;
  if (pause.paused) reason = { code: 'MARKET_PAUSED', message: pause.reason ?? 'Trading is paused by the operator' };
  else if (current.session === 'paused') reason = { code: 'MARKET_PAUSED', message: transitionPauseMessage(current) };
  else if (!running) reason = { code: 'MARKET_CLOSED', message: closedMessage(now) };
  let status: MarketStatusName = 'closed';
  if (pause.paused || current.session === 'paused') status = 'paused';
  else if (isConventionalSession(current.session)) status = current.session;
  return {
    timestamp: now,
    isOpen: running && !pause.paused,
    marketStatus: status,
    nextOpenSession: next.session as ConventionalSession,
    nextOpen: next.start,
    nextClose: running ? current.end : next.end,
    offhours: {
      isOpen: offhoursRunning && !pause.paused,
      nextOpen: nextOffhours.start,
      nextClose: offhoursRunning ? current.end : nextOffhours.end,
    },
    reason,
  };
}
