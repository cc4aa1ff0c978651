/**
 * Session lookups on the reference issuer's timetable: the trading-day timeline with its transition
 * pauses, weekends, holidays, early closes, DST changes, and a cross-check of every lookup against an
 * independent Intl-based reference over 2025–2028.
 */
import {
  SESSIONS,
  type Session,
  type SessionInterval,
  isEarlyClose,
  isTradingDay,
  nextSession,
  sessionAt,
  sessionIntervalAt,
  sessionsBetween,
} from '../../../domain/calendar';

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** Epoch ms of an ISO timestamp written with its New York offset, e.g. '2025-06-13T20:00-04:00'. */
const at = (iso: string): number => {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`bad timestamp in test: ${iso}`);
  return t;
};
const interval = (session: Session, start: string, end: string): SessionInterval => ({ session, start: at(start), end: at(end) });

const wallClock = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** The session by the whole-hour hand-overs alone, as the calendar stood before its transition pauses. */
function handoverSession(date: string, minute: number): Exclude<Session, 'paused'> {
  const next = new Date(Date.parse(`${date}T12:00:00Z`) + 24 * HOUR).toISOString().slice(0, 10);
  if (minute >= 20 * 60) return isTradingDay(next) ? 'overnight' : 'offhours';
  if (!isTradingDay(date)) return 'offhours';
  const close = isEarlyClose(date) ? 13 * 60 : 16 * 60;
  if (minute < 4 * 60) return 'overnight';
  if (minute < 9 * 60 + 30) return 'premarket';
  if (minute < close) return 'regular';
  if (minute < close + 4 * 60) return 'postmarket';
  return 'offhours';
}

/**
 * Reference: the session at t from Intl's wall clock and the reference issuer's rules: a session keeps 1 minute
 * (premarket, regular, postmarket) or 5 (overnight, offhours) clear of each hand-over, which is paused.
 */
function referenceSession(t: number): Session {
  const p: Record<string, string> = {};
  for (const { type, value } of wallClock.formatToParts(t)) p[type] = value;
  const date = `${p.year}-${p.month}-${p.day}`;
  const minute = Number(p.hour) * 60 + Number(p.minute);
  const session = handoverSession(date, minute);
  const margin = (s: Session): number => (s === 'overnight' || s === 'offhours' ? 5 : 1);
  for (const hour of [4 * 60, 9 * 60 + 30, 13 * 60, 16 * 60, 17 * 60, 20 * 60]) {
    const before = handoverSession(date, hour - 1);
    const after = handoverSession(date, hour);
    if (before !== after && minute >= hour - margin(before) && minute < hour + margin(after)) return 'paused';
  }
  return session;
}

test('SESSIONS lists every session in the documented order', () => {
  expect(SESSIONS).toEqual(['premarket', 'regular', 'postmarket', 'overnight', 'offhours', 'paused']);
});

describe('an ordinary trading day (Wednesday 2025-06-11, EDT): the reference issuer\'s timetable', () => {
  test.each([
    ['2025-06-11T00:00-04:00', 'overnight'],
    ['2025-06-11T03:54:59.999-04:00', 'overnight'],
    ['2025-06-11T03:55-04:00', 'paused'],
    ['2025-06-11T04:00:59.999-04:00', 'paused'],
    ['2025-06-11T04:01-04:00', 'premarket'],
    ['2025-06-11T09:28:59.999-04:00', 'premarket'],
    ['2025-06-11T09:29-04:00', 'paused'],
    ['2025-06-11T09:30:59.999-04:00', 'paused'],
    ['2025-06-11T09:31-04:00', 'regular'],
    ['2025-06-11T15:58:59.999-04:00', 'regular'],
    ['2025-06-11T15:59-04:00', 'paused'],
    ['2025-06-11T16:00:59.999-04:00', 'paused'],
    ['2025-06-11T16:01-04:00', 'postmarket'],
    ['2025-06-11T19:58:59.999-04:00', 'postmarket'],
    ['2025-06-11T19:59-04:00', 'paused'],
    ['2025-06-11T20:04:59.999-04:00', 'paused'],
    ['2025-06-11T20:05-04:00', 'overnight'],
    ['2025-06-11T23:59:59.999-04:00', 'overnight'],
  ])('sessionAt(%s) = %s', (iso, session) => {
    expect(sessionAt(at(iso))).toBe(session);
  });

  test('the day splits into sessions with a transition pause at every hand-over', () => {
    expect(sessionsBetween(at('2025-06-10T20:05-04:00'), at('2025-06-12T03:55-04:00'))).toEqual([
      interval('overnight', '2025-06-10T20:05-04:00', '2025-06-11T03:55-04:00'),
      interval('paused', '2025-06-11T03:55-04:00', '2025-06-11T04:01-04:00'),
      interval('premarket', '2025-06-11T04:01-04:00', '2025-06-11T09:29-04:00'),
      interval('paused', '2025-06-11T09:29-04:00', '2025-06-11T09:31-04:00'),
      interval('regular', '2025-06-11T09:31-04:00', '2025-06-11T15:59-04:00'),
      interval('paused', '2025-06-11T15:59-04:00', '2025-06-11T16:01-04:00'),
      interval('postmarket', '2025-06-11T16:01-04:00', '2025-06-11T19:59-04:00'),
      interval('paused', '2025-06-11T19:59-04:00', '2025-06-11T20:05-04:00'),
      interval('overnight', '2025-06-11T20:05-04:00', '2025-06-12T03:55-04:00'),
    ]);
  });

  test('a winter day has the same wall-clock sessions at EST offsets', () => {
    expect(sessionIntervalAt(at('2025-01-15T12:00-05:00'))).toEqual(interval('regular', '2025-01-15T09:31-05:00', '2025-01-15T15:59-05:00'));
    expect(sessionIntervalAt(at('2025-01-15T23:00-05:00'))).toEqual(interval('overnight', '2025-01-15T20:05-05:00', '2025-01-16T03:55-05:00'));
  });
});

describe('weekends', () => {
  test('offhours runs from Friday 20:05 (after the 19:59 pause) to Sunday 19:55, then a pause until the overnight', () => {
    const weekend = interval('offhours', '2025-06-13T20:05-04:00', '2025-06-15T19:55-04:00');
    expect(sessionAt(at('2025-06-13T19:58:59.999-04:00'))).toBe('postmarket');
    expect(sessionIntervalAt(at('2025-06-13T20:00-04:00'))).toEqual(interval('paused', '2025-06-13T19:59-04:00', '2025-06-13T20:05-04:00'));
    expect(sessionIntervalAt(at('2025-06-13T20:05-04:00'))).toEqual(weekend);
    expect(sessionIntervalAt(at('2025-06-14T12:00-04:00'))).toEqual(weekend);
    expect(sessionIntervalAt(at('2025-06-15T19:54:59.999-04:00'))).toEqual(weekend);
    expect(sessionIntervalAt(at('2025-06-15T19:55-04:00'))).toEqual(interval('paused', '2025-06-15T19:55-04:00', '2025-06-15T20:05-04:00'));
  });

  test('Sunday 20:05 starts the overnight session of Monday', () => {
    expect(sessionIntervalAt(at('2025-06-15T20:05-04:00'))).toEqual(interval('overnight', '2025-06-15T20:05-04:00', '2025-06-16T03:55-04:00'));
    expect(sessionAt(at('2025-06-16T03:00-04:00'))).toBe('overnight');
  });

  test('there is no overnight session from Friday night into Saturday', () => {
    expect(sessionAt(at('2025-06-14T02:00-04:00'))).toBe('offhours');
  });

  test("the reference issuer's own example: Juneteenth 2026 makes offhours 2026-06-19T00:05Z–2026-06-21T23:55Z", () => {
    expect(sessionIntervalAt(at('2026-06-20T12:00-04:00'))).toEqual(interval('offhours', '2026-06-19T00:05:00Z', '2026-06-21T23:55:00Z'));
  });
});

describe('holidays', () => {
  test('the night before a holiday is offhours, with no overnight session (Independence Day 2025)', () => {
    // July 3 2025 is an early close; July 4 a Friday holiday: offhours from 17:05 Thursday to Sunday 19:55.
    expect(sessionIntervalAt(at('2025-07-03T21:00-04:00'))).toEqual(interval('offhours', '2025-07-03T17:05-04:00', '2025-07-06T19:55-04:00'));
  });

  test('Thanksgiving: offhours from Wednesday 20:05, overnight resumes Thursday 20:05 for Friday', () => {
    expect(sessionsBetween(at('2025-11-26T16:01-05:00'), at('2025-11-28T09:29-05:00'))).toEqual([
      interval('postmarket', '2025-11-26T16:01-05:00', '2025-11-26T19:59-05:00'),
      interval('paused', '2025-11-26T19:59-05:00', '2025-11-26T20:05-05:00'),
      interval('offhours', '2025-11-26T20:05-05:00', '2025-11-27T19:55-05:00'),
      interval('paused', '2025-11-27T19:55-05:00', '2025-11-27T20:05-05:00'),
      interval('overnight', '2025-11-27T20:05-05:00', '2025-11-28T03:55-05:00'),
      interval('paused', '2025-11-28T03:55-05:00', '2025-11-28T04:01-05:00'),
      interval('premarket', '2025-11-28T04:01-05:00', '2025-11-28T09:29-05:00'),
    ]);
  });

  test('a Monday holiday merges with the weekend; its evening starts the overnight session of Tuesday', () => {
    // Martin Luther King, Jr. Day, Monday 2025-01-20.
    expect(sessionIntervalAt(at('2025-01-19T21:00-05:00'))).toEqual(interval('offhours', '2025-01-17T20:05-05:00', '2025-01-20T19:55-05:00'));
    expect(sessionIntervalAt(at('2025-01-20T20:05-05:00'))).toEqual(interval('overnight', '2025-01-20T20:05-05:00', '2025-01-21T03:55-05:00'));
  });

  test('a mid-week special closure (2025-01-09) interrupts the week', () => {
    expect(sessionIntervalAt(at('2025-01-09T10:00-05:00'))).toEqual(interval('offhours', '2025-01-08T20:05-05:00', '2025-01-09T19:55-05:00'));
  });
});

describe('early closes', () => {
  test('Christmas Eve 2025: regular to 12:59, postmarket 13:01–16:59, then offhours through Christmas', () => {
    expect(sessionsBetween(at('2025-12-24T09:00-05:00'), at('2025-12-26T00:00-05:00'))).toEqual([
      interval('premarket', '2025-12-24T09:00-05:00', '2025-12-24T09:29-05:00'),
      interval('paused', '2025-12-24T09:29-05:00', '2025-12-24T09:31-05:00'),
      interval('regular', '2025-12-24T09:31-05:00', '2025-12-24T12:59-05:00'),
      interval('paused', '2025-12-24T12:59-05:00', '2025-12-24T13:01-05:00'),
      interval('postmarket', '2025-12-24T13:01-05:00', '2025-12-24T16:59-05:00'),
      interval('paused', '2025-12-24T16:59-05:00', '2025-12-24T17:05-05:00'),
      interval('offhours', '2025-12-24T17:05-05:00', '2025-12-25T19:55-05:00'),
      interval('paused', '2025-12-25T19:55-05:00', '2025-12-25T20:05-05:00'),
      interval('overnight', '2025-12-25T20:05-05:00', '2025-12-26T00:00-05:00'),
    ]);
  });

  test('the day after Thanksgiving: regular to 12:59, a pause, postmarket from 13:01, offhours from 17:05 into the weekend', () => {
    expect(sessionAt(at('2025-11-28T12:58:59.999-05:00'))).toBe('regular');
    expect(sessionAt(at('2025-11-28T12:59-05:00'))).toBe('paused');
    expect(sessionAt(at('2025-11-28T13:01-05:00'))).toBe('postmarket');
    expect(sessionIntervalAt(at('2025-11-28T18:00-05:00'))).toEqual(interval('offhours', '2025-11-28T17:05-05:00', '2025-11-30T19:55-05:00'));
  });

  test('July 3 2028 (Monday) closes early before the Tuesday holiday', () => {
    expect(sessionIntervalAt(at('2028-07-03T12:00-04:00'))).toEqual(interval('regular', '2028-07-03T09:31-04:00', '2028-07-03T12:59-04:00'));
    expect(sessionIntervalAt(at('2028-07-03T17:05-04:00'))).toEqual(interval('offhours', '2028-07-03T17:05-04:00', '2028-07-04T19:55-04:00'));
  });
});

describe('DST changes', () => {
  test('spring forward: the weekend offhours is 47 h less its pauses, Sunday-night overnight is 7 h 50 of EDT', () => {
    const weekend = sessionIntervalAt(at('2025-03-09T02:30-05:00'));
    expect(weekend).toEqual(interval('offhours', '2025-03-07T20:05-05:00', '2025-03-09T19:55-04:00'));
    expect(weekend.end - weekend.start).toBe(47 * HOUR - 10 * MINUTE);
    expect(sessionAt(at('2025-03-09T01:59:59.999-05:00'))).toBe('offhours');
    expect(sessionAt(at('2025-03-09T03:00-04:00'))).toBe('offhours');
    const overnight = sessionIntervalAt(at('2025-03-09T20:05-04:00'));
    expect(overnight).toEqual(interval('overnight', '2025-03-09T20:05-04:00', '2025-03-10T03:55-04:00'));
    expect(sessionIntervalAt(at('2025-03-10T10:00-04:00'))).toEqual(interval('regular', '2025-03-10T13:31:00Z', '2025-03-10T19:59:00Z'));
  });

  test('the Friday before spring forward still runs on EST', () => {
    expect(sessionIntervalAt(at('2025-03-07T10:00-05:00'))).toEqual(interval('regular', '2025-03-07T14:31:00Z', '2025-03-07T20:59:00Z'));
  });

  test('fall back: the weekend offhours is 49 h less its pauses, Sunday-night overnight starts at 20:05 EST', () => {
    const weekend = sessionIntervalAt(at('2025-11-02T01:30-05:00'));
    expect(weekend).toEqual(interval('offhours', '2025-10-31T20:05-04:00', '2025-11-02T19:55-05:00'));
    expect(weekend.end - weekend.start).toBe(49 * HOUR - 10 * MINUTE);
    expect(sessionIntervalAt(at('2025-11-02T20:05-05:00'))).toEqual(interval('overnight', '2025-11-03T01:05:00Z', '2025-11-03T08:55:00Z'));
    expect(sessionIntervalAt(at('2025-11-03T09:31-05:00'))).toEqual(interval('regular', '2025-11-03T14:31:00Z', '2025-11-03T20:59:00Z'));
  });
});

describe('agreement with an Intl-based reference, 2025–2028', () => {
  const from = at('2025-01-01T00:00:00Z');
  const to = at('2029-01-01T00:00:00Z');

  test('sessionAt matches the reference every 17 minutes', () => {
    const mismatches: string[] = [];
    for (let t = from; t < to; t += 17 * MINUTE) {
      if (sessionAt(t) !== referenceSession(t)) mismatches.push(new Date(t).toISOString());
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  test('every interval is maximal, contiguous with its neighbours, and matches the reference at both ends', () => {
    const problems: string[] = [];
    let previous: SessionInterval | undefined;
    for (let t = from; t < to; ) {
      const current = sessionIntervalAt(t);
      const label = `${current.session}@${new Date(current.start).toISOString()}`;
      if (previous !== undefined && (previous.end !== current.start || previous.session === current.session)) problems.push(`join ${label}`);
      if (referenceSession(current.start) !== current.session || referenceSession(current.end - 1) !== current.session) problems.push(`ends ${label}`);
      if (referenceSession(current.end) === current.session) problems.push(`not maximal ${label}`);
      if (sessionAt(current.start) !== current.session || sessionAt(current.end - 1) !== current.session) problems.push(`sessionAt ${label}`);
      previous = current;
      t = current.end;
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  test('sessionIntervalAt from any point inside an interval returns the same interval', () => {
    const week = sessionsBetween(at('2025-03-06T00:00-05:00'), at('2025-03-13T00:00-04:00')).slice(1, -1);
    expect(week).toHaveLength(41);
    for (const iv of week) {
      for (const t of [iv.start, iv.start + 1, Math.floor((iv.start + iv.end) / 2), iv.end - 1]) {
        expect(sessionIntervalAt(t)).toEqual(iv);
      }
    }
  });
});

describe('sessionsBetween', () => {
  /** Deterministic pseudo-random numbers (LCG) so failures reproduce. */
  function* lcg(seed: number): Generator<number> {
    let state = seed;
    for (;;) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      yield state / 2 ** 31;
    }
  }

  test('covers [from, to) exactly: contiguous, ordered, clipped, adjacent sessions differ', () => {
    const random = lcg(42);
    const base = at('2025-01-01T00:00:00Z');
    const span = at('2029-01-01T00:00:00Z') - base;
    const problems: string[] = [];
    for (let i = 0; i < 300; i++) {
      const from = base + Math.floor(random.next().value * span);
      const to = from + Math.floor(random.next().value * 20 * 24 * HOUR);
      const list = sessionsBetween(from, to);
      const label = `[${new Date(from).toISOString()}, ${new Date(to).toISOString()})`;
      if (list[0]?.start !== from || list[list.length - 1]?.end !== to) problems.push(`ends ${label}`);
      list.forEach((iv, k) => {
        const next = list[k + 1];
        if (iv.end <= iv.start || sessionAt(iv.start) !== iv.session || sessionAt(iv.end - 1) !== iv.session) problems.push(`interval ${k} ${label}`);
        if (next !== undefined && (next.start !== iv.end || next.session === iv.session)) problems.push(`join ${k} ${label}`);
      });
    }
    expect(problems).toEqual([]);
  });

  test('a plain week has 5 regular sessions, one weekend offhours and a pause at every hand-over', () => {
    const list = sessionsBetween(at('2025-06-09T00:00-04:00'), at('2025-06-16T00:00-04:00'));
    expect(list.filter((iv) => iv.session === 'regular')).toHaveLength(5);
    expect(list.filter((iv) => iv.session === 'offhours')).toEqual([interval('offhours', '2025-06-13T20:05-04:00', '2025-06-15T19:55-04:00')]);
    expect(list.filter((iv) => iv.session === 'paused')).toHaveLength(5 * 4 + 1);
    expect(list.filter((iv) => iv.session === 'overnight')).toHaveLength(6); // Monday 00:00–04:00, Monday–Thursday nights, Sunday night's first hours
  });

  test('an empty or inverted range yields no sessions; a range inside one session yields it clipped', () => {
    const t = at('2025-06-11T10:00-04:00');
    expect(sessionsBetween(t, t)).toEqual([]);
    expect(sessionsBetween(t, t - HOUR)).toEqual([]);
    expect(sessionsBetween(t, t + HOUR)).toEqual([{ session: 'regular', start: t, end: t + HOUR }]);
  });
});

describe('nextSession', () => {
  const regular = (s: Session): boolean => s === 'regular';

  test('from Friday regular, the next regular session is Monday', () => {
    expect(nextSession(at('2025-06-13T12:00-04:00'), regular)).toEqual(interval('regular', '2025-06-16T09:31-04:00', '2025-06-16T15:59-04:00'));
  });

  test('skips the interval containing t even when accepted', () => {
    expect(nextSession(at('2025-06-16T09:31-04:00'), regular)).toEqual(interval('regular', '2025-06-17T09:31-04:00', '2025-06-17T15:59-04:00'));
  });

  test('from the evening before Thanksgiving, the next regular session is the short Friday', () => {
    expect(nextSession(at('2025-11-26T21:00-05:00'), regular)).toEqual(interval('regular', '2025-11-28T09:31-05:00', '2025-11-28T12:59-05:00'));
  });

  test('the next overnight from Friday is Sunday 20:05; the next offhours from Christmas Eve morning is its 17:05 gap', () => {
    expect(nextSession(at('2025-06-13T12:00-04:00'), (s) => s === 'overnight')).toEqual(
      interval('overnight', '2025-06-15T20:05-04:00', '2025-06-16T03:55-04:00'),
    );
    expect(nextSession(at('2025-12-24T10:00-05:00'), (s) => s === 'offhours')).toEqual(
      interval('offhours', '2025-12-24T17:05-05:00', '2025-12-25T19:55-05:00'),
    );
  });

  test('returns undefined when nothing accepted starts within 30 days', () => {
    expect(nextSession(at('2025-06-13T12:00-04:00'), () => false)).toBeUndefined();
  });
});

describe('robustness', () => {
  test('rejects non-finite times', () => {
    expect(() => sessionAt(Number.NaN)).toThrow(RangeError);
    expect(() => sessionIntervalAt(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => sessionsBetween(0, Number.NaN)).toThrow(RangeError);
  });

  test('intervals handed out cannot corrupt later lookups', () => {
    const t = at('2025-06-11T10:00-04:00');
    const first = sessionIntervalAt(t);
    first.end = first.start;
    first.session = 'offhours';
    expect(sessionIntervalAt(t)).toEqual(interval('regular', '2025-06-11T09:31-04:00', '2025-06-11T15:59-04:00'));
  });

  test('a minute-by-minute sweep over four years sees the expected amount of regular session', () => {
    const start = at('2025-01-01T00:00:00Z');
    const end = at('2029-01-01T00:00:00Z');
    const counts: Record<Session, number> = { premarket: 0, regular: 0, postmarket: 0, overnight: 0, offhours: 0, paused: 0 };
    for (let t = start; t < end; t += MINUTE) counts[sessionAt(t)]++;
    expect(counts.regular).toBeGreaterThan(4 * 240 * 6 * 60);
  });
});
