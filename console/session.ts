/**
 * Console sessions: an admin key is exchanged once, at sign-in, for a random session id held in an HttpOnly,
 * SameSite=Strict cookie scoped to `/console` (the key itself is never stored in the browser, nor in the session
 * row: the row holds the SHA-256 of the id and the key's id). Read, write and partner keys are refused. Unknown or
 * revoked keys cost the client address a failed authentication under the same throttle as the API's keys
 * (access/failed-auth.ts); past it, sign-in answers 429 before the key is looked up. Every form of a session carries
 * its anti-forgery token, compared in constant time; a POST from another origin is refused as well.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ParameterizedContext } from 'koa';
import type { ApiKeyResolver } from '../access/api-keys';
import type { FailedAuthentications } from '../access/failed-auth';
import type { Database } from '../db/pool';
import type { ApiKey } from '../db/queries/api-keys';
import { createConsoleSession, endConsoleSession, findConsoleSession } from '../db/queries/console';
import type { ApiState } from '../api/framework/state';

export const SESSION_COOKIE = 'console_session';

export interface SignedIn {
  sessionId: string;
  key: ApiKey;
  csrf: string;
}

/** What a page says on top: the outcome of the operator's own action, read from its audit entry. */
export interface ConsoleNotice {
  kind: 'done' | 'error';
  text: string;
}

export type ConsoleContext = ParameterizedContext<ApiState & { console?: SignedIn; notice?: ConsoleNotice }>;

export type SignInOutcome = { outcome: 'signed-in' } | { outcome: 'refused'; status: 401 | 403 | 429; message: string };

export class ConsoleSessions {
  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeyResolver,
    private readonly failures: FailedAuthentications,
    private readonly ttlMs: number,
  ) {}

  /** Checks the key and, for an admin key, opens a session and sets its cookie. */
  async signIn(ctx: ConsoleContext, secret: string): Promise<SignInOutcome> {
    if (!secret) return { outcome: 'refused', status: 401, message: 'Enter an admin API key.' };
    const checked = await this.failures.check(ctx.ip, () => this.keys.resolve(secret), (key) => key === undefined, { shared: this.keys.lookingUp(secret) });
    if (checked.outcome === 'throttled') {
      return { outcome: 'refused', status: 429, message: `Too many failed sign-ins from this address (${this.failures.policy.burst} a minute); wait and try again.` };
    }
    const key = checked.value;
    if (!key) return { outcome: 'refused', status: 401, message: 'Unknown or revoked API key.' };
    if (key.scope !== 'admin') return { outcome: 'refused', status: 403, message: `A ${key.scope} key cannot sign in to the console: it takes an admin key.` };
    const sessionId = randomBytes(32).toString('base64url');
    await createConsoleSession(this.db, { sessionId, keyId: key.id, csrfToken: randomBytes(32).toString('base64url'), ttlMs: this.ttlMs });
    ctx.cookies.set(SESSION_COOKIE, sessionId, { httpOnly: true, sameSite: 'strict', path: '/console', maxAge: this.ttlMs, secure: ctx.secure, overwrite: true });
    return { outcome: 'signed-in' };
  }

  /** The session the request's cookie names, if it is live. */
  async current(ctx: ConsoleContext): Promise<SignedIn | undefined> {
    const sessionId = ctx.cookies.get(SESSION_COOKIE);
    if (!sessionId || sessionId.length > 100) return undefined;
    const session = await findConsoleSession(this.db, sessionId);
    return session && { sessionId, key: session.key, csrf: session.csrfToken };
  }

  async signOut(ctx: ConsoleContext, session: SignedIn): Promise<void> {
    await endConsoleSession(this.db, session.sessionId);
    ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/console', maxAge: 0, secure: ctx.secure, overwrite: true });
  }
}

/** Whether a form's token is the session's (constant time). */
export function validCsrf(session: SignedIn, token: string | undefined): boolean {
  if (!token) return false;
  const expected = Buffer.from(session.csrf);
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A POST whose Origin (or Referer) names another site is refused whatever it carries. */
export function sameOrigin(ctx: ConsoleContext): boolean {
  const origin = ctx.get('origin') || ctx.get('referer');
  if (!origin || origin === 'null') return !ctx.get('origin');
  try {
    return new URL(origin).host === ctx.host;
  } catch {
    return false;
  }
}
