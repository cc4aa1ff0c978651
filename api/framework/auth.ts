/**
 * API-key authentication and scopes. Keys are looked up by hash; lookups are memoised for a few
 * seconds (`API_KEY_CACHE_SECONDS`) and dropped at once when this process revokes or is told of a revocation.
 * Failed authentications are throttled per client address (`AUTH_FAILURES_PER_MINUTE`, default 10): an address
 * past it gets 429 RATE_LIMITED before its key is looked up, so guessing keys never reaches the database faster.
 */
import type { Context, Middleware } from 'koa';
import { findActiveApiKey, type ApiKey, type KeyScope } from '../../db/queries/api-keys';
import type { Database } from '../../db/pool';
import { ApiError } from './errors';
import { RateLimiter, rateLimitHeaders, type RateLimitPolicy } from './rate-limit';
import type { ApiState } from './state';

interface CachedLookup {
  key: ApiKey | undefined;
  expiresAt: number;
}

export class ApiKeyResolver {
  private readonly cache = new Map<string, CachedLookup>();
  /** Secrets that were valid at their last lookup, memoised or not (bounded). */
  private readonly knownValid = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
  ) {}

  async resolve(secret: string): Promise<ApiKey | undefined> {
    const now = Date.now();
    const cached = this.cache.get(secret);
    if (cached && cached.expiresAt > now) return cached.key;
    const key = await findActiveApiKey(this.db, secret);
    if (key) {
      if (this.knownValid.size > 10_000) this.knownValid.clear();
      this.knownValid.add(secret);
    } else {
      this.knownValid.delete(secret);
    }
    if (this.ttlMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(secret, { key, expiresAt: now + this.ttlMs });
    }
    return key;
  }

  /**
   * Whether `secret` was a valid key at its last lookup (memoised or not: it is looked up again once its memo is gone,
   * and a revoked key is refused then). Such a key never costs its address a failed-authentication token, so many
   * clients behind one address, or one client with many requests in flight, are not throttled as if they were guessing.
   */
  knows(secret: string): boolean {
    return this.knownValid.has(secret);
  }

  /** Forget every memoised lookup (after a key is created or revoked). */
  clear(): void {
    this.cache.clear();
  }
}

/** The failed-authentication policy: `perMinute` failures per client address, all of them usable at once. */
export function failedAuthPolicy(perMinute: number): RateLimitPolicy {
  return { name: 'failed-auth', perSecond: perMinute / 60, burst: perMinute };
}

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

/** Basic credentials name a partner key by its id; anything else is refused as an invalid key. */
function basicCredentialsProblem(key: ApiKey, basicUser: string | undefined): string | undefined {
  if (basicUser === undefined) return undefined;
  if (key.scope !== 'partner') return 'Basic credentials are for partner keys; send other keys in the x-api-key header';
  return basicUser === key.id ? undefined : 'Invalid API key';
}

/**
 * Resolves `x-api-key` (or a partner key's basic credentials) into `ctx.state.apiKey`. Every lookup the database must answer takes one failed-authentication
 * token of the client address up front (so a burst of wrong keys cannot all pass the check at once) and gives it back
 * when the key turns out valid; a refusal carries the `failed-auth` RateLimit fields.
 */
export function authenticate(resolver: ApiKeyResolver, options: { failuresPerMinute: number }): Middleware<ApiState> {
  const failures = new RateLimiter();
  const policy = failedAuthPolicy(options.failuresPerMinute);
  return async (ctx, next) => {
    const { secret, basicUser } = presentedKey(ctx) ?? { secret: '' };
    const address = ctx.ip;
    if (!secret) {
      throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header', {
        headers: rateLimitHeaders(policy, failures.peek(address, policy.perSecond, policy.burst)),
      });
    }
    if (!resolver.knows(secret)) {
      const attempt = failures.take(address, policy.perSecond, policy.burst);
      if (!attempt.allowed) {
        throw new ApiError('RATE_LIMITED', `Too many failed authentications from this address (${policy.burst} a minute)`, {
          headers: rateLimitHeaders(policy, attempt),
        });
      }
      let key: ApiKey | undefined;
      try {
        key = await resolver.resolve(secret);
      } catch (error) {
        failures.refund(address, policy.burst);
        throw error;
      }
      const problem = key ? basicCredentialsProblem(key, basicUser) : 'Invalid API key';
      if (!key || problem) throw new ApiError('MISSING_API_KEY', problem ?? 'Invalid API key', { headers: rateLimitHeaders(policy, attempt) });
      failures.refund(address, policy.burst);
      ctx.state.apiKey = key;
    } else {
      const key = await resolver.resolve(secret);
      const problem = key ? basicCredentialsProblem(key, basicUser) : 'Invalid API key';
      if (!key || problem) {
        throw new ApiError('MISSING_API_KEY', problem ?? 'Invalid API key', { headers: rateLimitHeaders(policy, failures.peek(address, policy.perSecond, policy.burst)) });
      }
      ctx.state.apiKey = key;
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
