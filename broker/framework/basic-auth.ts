/**
 * HTTP basic authentication against the sandbox's stored credentials, and the role a route requires:
 * participants act on their own accounts, the issuer calls back. Failed authentications are throttled per client
 * address as on the issuer's API (10 a minute by default, `authFailuresPerMinute`): only credentials found wrong cost
 * the address a failure, and an address with none left gets 429 RATE_LIMITED before its credentials are checked.
 * Every refusal of the credentials carries the `failed-auth` RateLimit fields.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Pool } from 'pg';
import { failedAuthPolicy, FailedAuthentications } from '../../access/failed-auth';
import { rateLimitHeaders, type TakeResult } from '../../access/rate-limiter';
import { BrokerError } from '../errors';
import { verifyCredential, type CredentialRole } from '../queries/credentials';
import type { BrokerState } from './state';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="brokerage-sandbox", charset="UTF-8"' };
/** Credentials remembered as valid at their last check (bounded); they are still checked on every request. */
const KNOWN_VALID_MAX = 10_000;

/** Decodes `Authorization: Basic base64(key:secret)`. */
function readBasic(header: string): { key: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { key: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function basicAuth(db: Pool, options: { failuresPerMinute: number }): Middleware<BrokerState> {
  const failures = new FailedAuthentications(failedAuthPolicy(options.failuresPerMinute));
  const knownValid = new Set<string>();
  const refuse = (message: string, budget: TakeResult): BrokerError => {
    const headers = rateLimitHeaders(failures.policy, budget);
    return budget.allowed
      ? new BrokerError('UNAUTHORIZED', message, { headers: { ...CHALLENGE, ...headers } })
      : new BrokerError('RATE_LIMITED', `Too many failed authentications from this address (${failures.policy.burst} a minute)`, { headers });
  };
  return async (ctx, next) => {
    const address = ctx.ip;
    const header = ctx.get('authorization');
    if (!header) throw refuse('Missing credentials: send the broker key and secret with HTTP basic authentication', failures.peek(address));
    const offered = readBasic(header);
    if (!offered) throw refuse('Malformed Authorization header: expected Basic base64(key:secret)', failures.fail(address));
    const fingerprint = createHash('sha256').update(`${offered.key}:${offered.secret}`).digest('base64');
    const check = () => verifyCredential(db, offered.key, offered.secret);
    let role: CredentialRole | undefined;
    if (knownValid.has(fingerprint)) {
      role = await check();
      if (!role) {
        knownValid.delete(fingerprint);
        throw refuse('Invalid broker key or secret', failures.fail(address));
      }
    } else {
      const checked = await failures.check(address, check, (found) => found === undefined);
      if (checked.outcome === 'throttled' || !checked.value) throw refuse('Invalid broker key or secret', checked.budget);
      role = checked.value;
      if (knownValid.size >= KNOWN_VALID_MAX) knownValid.clear();
      knownValid.add(fingerprint);
    }
    ctx.state.credential = { key: offered.key, role };
    await next();
  };
}

/** Refuses credentials of any other role with 403. */
export function requireRole(...roles: CredentialRole[]): Middleware<BrokerState> {
  return async (ctx, next) => {
    const credential = ctx.state.credential;
    if (!credential) throw new BrokerError('UNAUTHORIZED', 'Missing credentials', { headers: CHALLENGE });
    if (!roles.includes(credential.role)) {
      throw new BrokerError('FORBIDDEN', `This endpoint is not open to ${credential.role} credentials`);
    }
    await next();
  };
}
