/**
 * US equity trading sessions in America/New_York, on the reference issuer's timetable: which session
 * runs at an instant, the maximal interval of that session, and walks over consecutive sessions.
 *
 * Sessions hand over at whole hours. On a trading day D (New York time) the hand-overs are: overnight
 * (begun the evening before) → premarket at 04:00, → regular at 09:30, → postmarket at 16:00, → overnight
 * at 20:00 if D+1 is a trading day (offhours otherwise). Early-close days hand regular → postmarket at
 * 13:00 and postmarket → offhours at 17:00, then offhours → overnight at 20:00. Weekends and holidays
 * are offhours, until the overnight that precedes the next trading day.
 *
 * Every hand-over is a market-wide transition pause (`paused`): the session before it ends
 * {@link HANDOVER_MARGIN_MINUTES} before the hour and the one after starts that margin after it, one
 * minute for premarket, regular and postmarket, five for overnight and offhours. So premarket runs
 * 04:01–09:29, regular 09:31–15:59 (12:59 on an early close), postmarket 16:01–19:59 (13:01–16:59),
 * overnight 20:05–03:55, offhours from 20:05 (17:05 after an early close) to 19:55 before an overnight;
 * pauses 03:55–04:01, 09:29–09:31, 15:59–16:01, 19:59–20:05 (12:59–13:01, 16:59–17:05, 19:55–20:05).
 * A pause is not a session: nothing that trades only in sessions trades in it. Each New York day's
 * layout is computed once and cached, so lookups are O(1) amortised.
 */

import { isEarlyCloseDayNumber, isTradingDayNumber } from './holidays';
import { DAY_MS, assertFiniteTime, newYorkDayNumber, newYorkLocalToUtc } from './timezone';

/** A period of the calendar: one of the five sessions, or a transition pause between two of them. */
export type Session = 'premarket' | 'regular' | 'postmarket' | 'overnight' | 'offhours' | 'paused';

/** The four conventional sessions (those the market status reports; offhours runs beside them). */
export type ConventionalSession = 'premarket' | 'regular' | 'postmarket' | 'overnight';

/** Every session, in the order they run through a trading day (offhours, then the transition pause, last). */
export const SESSIONS: readonly Session[] = Object.freeze(['premarket', 'regular', 'postmarket', 'overnight', 'offhours', 'paused'] as const);

/** Whether `session` is one of the four conventional sessions. */
export function isConventionalSession(session: Session): session is ConventionalSession {
  return session !== 'offhours' && session !== 'paused';
}

/** A session with limits of its own: every session but the transition pause. */
export type LimitedSession = Exclude<Session, 'paused'>;

/**
 * The session whose limits apply during `session`. A transition pause is on the off-hours track: only
 * what trades off-hours (around the clock) trades in it, on its off-hours limits.
 */
export function limitsSessionOf(session: Session): LimitedSession {
  return session === 'paused' ? 'offhours' : session;
}

/** One run of a single session, epoch ms, half-open [start, end). */
export interface SessionInterval {
  session: Session;
  start: number;
  end: number;
}

/** The hours sessions hand over at, as New York minutes of the day (each hand-over is a transition pause). */
export const SESSION_MINUTES = Object.freeze({
  premarketStart: 4 * 60,
  regularStart: 9 * 60 + 30,
  regularEnd: 16 * 60,
  earlyCloseRegularEnd: 13 * 60,
  postmarketLength: 4 * 60,
  overnightStart: 20 * 60,
});

/** How many minutes a session keeps clear of a hand-over, on either side: its end before it, its start after it. */
export const HANDOVER_MARGIN_MINUTES: Readonly<Record<LimitedSession, number>> = Object.freeze({
  premarket: 1,
  regular: 1,
  postmarket: 1,
  overnight: 5,
  offhours: 5,
});

/** nextSession looks this far ahead (from t) for the start of an accepted interval. */
export const NEXT_SESSION_HORIZON_MS = 30 * DAY_MS;

/** No run of one session is longer than this; guards the merge walks against a broken calendar. */
const MAX_MERGE_DAYS = 60;
const MAX_CACHED_DAYS = 8192;

interface DayLayout {
  start: number;
  end: number;
  /** Contiguous, non-empty, adjacent entries differ in session; covers [start, end). */
  segments: readonly SessionInterval[];
}

type Handover = [LimitedSession, number];

const layouts = new Map<number, DayLayout>();
let lastSegment: SessionInterval = { session: 'offhours', start: 0, end: 0 };

/** The sessions of New York day `day` and the minute each takes over, the first at midnight. */
function handoversOf(day: number): Handover[] {
  const m = SESSION_MINUTES;
  const overnightTonight = isTradingDayNumber(day + 1);
  const pieces: Handover[] = [];
  if (isTradingDayNumber(day)) {
    const close = isEarlyCloseDayNumber(day) ? m.earlyCloseRegularEnd : m.regularEnd;
    pieces.push(['overnight', 0], ['premarket', m.premarketStart], ['regular', m.regularStart], ['postmarket', close]);
    if (close + m.postmarketLength < m.overnightStart) pieces.push(['offhours', close + m.postmarketLength]);
  } else {
    pieces.push(['offhours', 0]);
  }
  pieces.push([overnightTonight ? 'overnight' : 'offhours', m.overnightStart]);
  return pieces.filter(([session], i) => i === 0 || pieces[i - 1]?.[0] !== session);
}

function buildLayout(day: number): DayLayout {
  const at = (minute: number): number => newYorkLocalToUtc(day * DAY_MS + minute * 60_000);
  const pieces = handoversOf(day);
  const start = at(0);
  const end = newYorkLocalToUtc((day + 1) * DAY_MS);
  const segments: SessionInterval[] = [];
  pieces.forEach(([session, minute], i) => {
    const previous = pieces[i - 1];
    const next = pieces[i + 1];
    const from = previous === undefined ? start : at(minute + HANDOVER_MARGIN_MINUTES[session]);
    const to = next === undefined ? end : at(next[1] - HANDOVER_MARGIN_MINUTES[session]);
    if (previous !== undefined) segments.push({ session: 'paused', start: segments[segments.length - 1]?.end ?? start, end: from });
    segments.push({ session, start: from, end: to });
  });
  return { start, end, segments: segments.map((s) => Object.freeze(s)) };
}

function layoutOf(day: number): DayLayout {
  let layout = layouts.get(day);
  if (layout === undefined) {
    if (layouts.size >= MAX_CACHED_DAYS) layouts.clear();
    layout = buildLayout(day);
    layouts.set(day, layout);
  }
  return layout;
}

/** The within-day segment containing t, and its position in its day's layout. */
function segmentAt(t: number): { day: number; index: number; segment: SessionInterval; layout: DayLayout } {
  const day = newYorkDayNumber(t);
  const layout = layoutOf(day);
  const { segments } = layout;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    if (segment !== undefined && t < segment.end) return { day, index, segment, layout };
  }
  throw new Error(`Calendar layout for day ${day} does not cover ${t}`);
}

/** The session running at instant `t` (epoch ms). */
export function sessionAt(t: number): Session {
  if (t >= lastSegment.start && t < lastSegment.end) return lastSegment.session;
  assertFiniteTime(t);
  lastSegment = segmentAt(t).segment;
  return lastSegment.session;
}

/**
 * The maximal interval of one session containing `t`: overnight runs 20:05–03:55 across midnight,
 * and offhours merges weekends, holidays and early-close gaps (e.g. Friday 20:05 → Sunday 19:55).
 */
export function sessionIntervalAt(t: number): SessionInterval {
  assertFiniteTime(t);
  const { day, index, segment, layout } = segmentAt(t);
  const { session } = segment;
  let { start, end } = segment;
  if (index === 0) {
    for (let d = day - 1; d > day - MAX_MERGE_DAYS; d--) {
      const { segments } = layoutOf(d);
      const last = segments[segments.length - 1];
      if (last === undefined || last.session !== session) break;
      start = last.start;
      if (segments.length > 1) break;
    }
  }
  if (index === layout.segments.length - 1) {
    for (let d = day + 1; d < day + MAX_MERGE_DAYS; d++) {
      const { segments } = layoutOf(d);
      const first = segments[0];
      if (first === undefined || first.session !== session) break;
      end = first.end;
      if (segments.length > 1) break;
    }
  }
  return { session, start, end };
}

/**
 * The sessions covering [from, to) in order: contiguous, each maximal, the first starting at `from`
 * and the last ending at `to`. Empty when `to <= from`.
 */
export function sessionsBetween(from: number, to: number): SessionInterval[] {
  assertFiniteTime(from, 'from');
  assertFiniteTime(to, 'to');
  const result: SessionInterval[] = [];
  let cursor = from;
  while (cursor < to) {
    const interval = sessionIntervalAt(cursor);
    const end = Math.min(interval.end, to);
    result.push({ session: interval.session, start: cursor, end });
    cursor = end;
  }
  return result;
}

/**
 * The first whole interval that starts after the interval containing `t` (so never the current one)
 * and whose session `accept` takes; undefined if none starts within 30 days of `t`.
 */
export function nextSession(t: number, accept: (s: Session) => boolean): SessionInterval | undefined {
  const horizon = t + NEXT_SESSION_HORIZON_MS;
  let interval = sessionIntervalAt(t);
  for (;;) {
    interval = sessionIntervalAt(interval.end);
    if (interval.start > horizon) return undefined;
    if (accept(interval.session)) return interval;
  }
}
