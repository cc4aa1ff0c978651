/**
 * US equity trading sessions in America/New_York: which session runs at an instant, the maximal
 * interval of that session, and walks over consecutive sessions.
 *
 * On a trading day D (New York time): overnight 00:00–04:00 (the tail of the overnight session that
 * began 20:00 the evening before), premarket 04:00–09:30, regular 09:30–16:00, postmarket 16:00–20:00,
 * then overnight from 20:00 if D+1 is a trading day. Early-close days run regular 09:30–13:00,
 * postmarket 13:00–17:00, then offhours until 20:00. Every other instant is offhours. Each New York
 * day's layout is computed once and cached, so lookups are O(1) amortised.
 */

import { isEarlyCloseDayNumber, isTradingDayNumber } from './holidays';
import { DAY_MS, assertFiniteTime, newYorkDayNumber, newYorkLocalToUtc } from './timezone';

export type Session = 'premarket' | 'regular' | 'postmarket' | 'overnight' | 'offhours';

/** Every session, in the order they run through a trading day (offhours last). */
export const SESSIONS: readonly Session[] = Object.freeze(['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const);

/** One run of a single session, epoch ms, half-open [start, end). */
export interface SessionInterval {
  session: Session;
  start: number;
  end: number;
}

/** Session boundaries as New York minutes of the day. */
export const SESSION_MINUTES = Object.freeze({
  premarketStart: 4 * 60,
  regularStart: 9 * 60 + 30,
  regularEnd: 16 * 60,
  earlyCloseRegularEnd: 13 * 60,
  postmarketLength: 4 * 60,
  overnightStart: 20 * 60,
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

const layouts = new Map<number, DayLayout>();
let lastSegment: SessionInterval = { session: 'offhours', start: 0, end: 0 };

function buildLayout(day: number): DayLayout {
  const at = (minute: number): number => newYorkLocalToUtc(day * DAY_MS + minute * 60_000);
  const m = SESSION_MINUTES;
  const trading = isTradingDayNumber(day);
  const overnightTonight = isTradingDayNumber(day + 1);
  const pieces: [Session, number][] = [];
  if (trading) {
    const close = isEarlyCloseDayNumber(day) ? m.earlyCloseRegularEnd : m.regularEnd;
    pieces.push(['overnight', 0], ['premarket', m.premarketStart], ['regular', m.regularStart], ['postmarket', close]);
    if (close + m.postmarketLength < m.overnightStart) pieces.push(['offhours', close + m.postmarketLength]);
  } else {
    pieces.push(['offhours', 0]);
  }
  pieces.push([overnightTonight ? 'overnight' : 'offhours', m.overnightStart]);

  const start = at(0);
  const end = newYorkLocalToUtc((day + 1) * DAY_MS);
  const segments: SessionInterval[] = [];
  pieces.forEach(([session, minute], i) => {
    const next = pieces[i + 1];
    const segmentEnd = next === undefined ? end : at(next[1]);
    const previous = segments[segments.length - 1];
    if (previous !== undefined && previous.session === session) previous.end = segmentEnd;
    else segments.push({ session, start: at(minute), end: segmentEnd });
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
 * The maximal interval of one session containing `t`: overnight runs 20:00–04:00 across midnight,
 * and offhours merges weekends, holidays and early-close gaps (e.g. Friday 20:00 → Sunday 20:00).
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
