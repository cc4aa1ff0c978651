/**
 * When and at what price the sandbox trades: the extended-hours day of US equities (premarket, regular and
 * postmarket sessions, domain/calendar), at the price its `marketPrice` source gives for the symbol at fill time.
 * Outside those sessions orders are refused (`MARKET_CLOSED`, naming the next open), the transition pauses between
 * them included: the sandbox holds nothing over a closed market, the caller places again at the open. A pause
 * between two of its sessions does not end the trading day (nor its day orders).
 */
import { nextSession, sessionIntervalAt, type Session, type SessionInterval } from '../../domain/calendar';

export const TRADING_SESSIONS: readonly Session[] = ['premarket', 'regular', 'postmarket'];

const trades = (session: Session) => TRADING_SESSIONS.includes(session);

/** The latest price of a symbol (decimal string, USD per share), if the sandbox has one. */
export type MarketPrice = (symbol: string) => Promise<string | undefined>;

export type MarketHours = { open: true; closesAt: number } | { open: false; nextOpenAt: number | undefined };

/** The session that starts at `t`, or the one after it if a transition pause starts at `t`. */
function sessionAfterPause(t: number): SessionInterval {
  const interval = sessionIntervalAt(t);
  return interval.session === 'paused' ? sessionIntervalAt(interval.end) : interval;
}

/** Whether the sandbox trades at `now`; open: when the trading day (the run of its sessions) ends, which ends day orders. */
export function marketHoursAt(now: number): MarketHours {
  let interval = sessionIntervalAt(now);
  if (!trades(interval.session)) return { open: false, nextOpenAt: nextSession(now, trades)?.start };
  for (let next = sessionAfterPause(interval.end); trades(next.session); next = sessionAfterPause(next.end)) interval = next;
  return { open: true, closesAt: interval.end };
}
