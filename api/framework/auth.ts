/**
 * API-key authentication and scopes. Keys are looked up through the process's `ApiKeyResolver` (access/api-keys.ts).
 * Failed authentications are throttled per client address (`AUTH_FAILURES_PER_MINUTE`, default 10, see
 * access/failed-auth.ts; the app holds one throttle for the keys and the console's sign-in): only a key found unknown or revoked costs its address a failure, and an address with none
 * left gets 429 RATE_LIMITED before its key is looked up, so guessing keys never reaches the database faster.
 */
import type { Context, Middleware } from 'koa';
import type { ApiKeyResolver } from '../../access/api-keys';
import type { FailedAuthentications } from '../../access/failed-auth';
import { rateLimitHeaders } from '../../access/rate-limiter';
import type { ApiKey, KeyScope } from '../../db/queries/api-keys';
import { ApiError } from '../../domain/errors';
import { failedAuthentications, rateLimitRefusals } from '../../metrics/metrics';
import type { ApiState } from './state';

/**
 * The key a request presents: `x-api-key`, or for partner keys HTTP basic credentials (the key's id as user name,
 * its secret as password), as brokerages call their partners.
 */
function presentedKey(ctx: Context): { secret: string; basicUser?: string } | undefined {
  const secret = ctx.get('x-api-key');
  if (secret) return { secret };
  const [scheme, encoded] = ctx.get('authorization').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return undefined;
  const credentials = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  if (colon < 0) return undefined;
  return { basicUser: credentials.slice(0, colon), secret: credentials.slice(colon + 1) };
}

/** Basic credentials name a partner key by its id; anything else is refused as an invalid key (401 INVALID_API_KEY). */
function basicCredentialsProblem(key: ApiKey, basicUser: string | undefined): string | undefined {
  if (basicUser === undefined) return undefined;
  if (key.scope !== 'partner') return 'Basic credentials are for partner keys; send other keys in the x-api-key header';
  return basicUser === key.id ? undefined : 'Invalid API key';
}

/** Why a looked-up key cannot authenticate this request, if it cannot. */
function keyProblem(key: ApiKey | undefined, basicUser: string | undefined): string | undefined {
  return key ? basicCredentialsProblem(key, basicUser) : 'Invalid API key';
}

/**
 * Resolves `x-api-key` (or a partner key's basic credentials) into `ctx.state.apiKey`. A key this process does not know
 * to be valid is looked up under the client address's failed-authentication budget (see access/failed-auth.ts); answers
 * refused for the key carry the `failed-auth` RateLimit fields.
 */
export function authenticate(resolver: ApiKeyResolver, options: { failures: FailedAuthentications }): Middleware<ApiState> {
  const { failures } = options;
  const refuse = (message: string, budget: Parameters<typeof rateLimitHeaders>[1]) => {
    if (!budget.allowed) {
      rateLimitRefusals.inc({ transport: 'http', policy: 'failed-auth' });
      return new ApiError('RATE_LIMITED', `Too many failed authentications from this address (${failures.policy.burst} a minute)`, {
        headers: rateLimitHeaders(failures.policy, budget),
      });
    }
    failedAuthentications.inc({ transport: 'http' });
    return new ApiError('INVALID_API_KEY', message, { headers: rateLimitHeaders(failures.policy, budget) });
  };
  return async (ctx, next) => {
    const { secret, basicUser } = presentedKey(ctx) ?? { secret: '' };
    const address = ctx.state.clientAddress;
    if (!secret) {
      failedAuthentications.inc({ transport: 'http' });
      throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header', { headers: rateLimitHeaders(failures.policy, failures.peek(address)) });
    }
    if (resolver.knows(secret)) {
      const key = await resolver.resolve(secret);
      const problem = keyProblem(key, basicUser);
      // Valid at its last lookup: a key revoked since (or sent with the wrong user name) fails like any other.
      if (problem) throw refuse(problem, failures.fail(address));
      ctx.state.apiKey = key;
    } else {
      const checked = await failures.check(address, () => resolver.resolve(secret), (key) => keyProblem(key, basicUser) !== undefined, { shared: resolver.lookingUp(secret) });
      if (checked.outcome === 'throttled') throw refuse('', checked.budget);
      const problem = keyProblem(checked.value, basicUser);
      if (problem) throw refuse(problem, checked.budget);
      ctx.state.apiKey = checked.value;
    }
    await next();
  };
}

const RANK: Record<KeyScope, number> = { read: 0, partner: 0, write: 1, admin: 2 };

/** Refuses keys below `scope`: a read-only key (or a partner key, read-only outside the partner routes) on a write route is READ_ONLY_API_KEY. */
export function requireScope(scope: Exclude<KeyScope, 'read'>): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.apiKey;
    if (!key) throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header');
    if (RANK[key.scope] === 0) throw new ApiError('READ_ONLY_API_KEY', 'This API key is read-only and cannot be used for write operations');
    if (RANK[key.scope] < RANK[scope]) throw new ApiError('ADMIN_SCOPE_REQUIRED', 'This operation requires an API key with the admin scope');
    await next();
  };
}

/** The partner routes take only the partner-scoped key the issuer gave the broker. */
export function requirePartnerScope(): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.apiKey;
    if (!key) throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header');
    if (key.scope !== 'partner') throw new ApiError('PARTNER_SCOPE_REQUIRED', 'The partner routes take the partner-scoped key the issuer gave the broker');
    await next();
  };
}
