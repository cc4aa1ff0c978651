/**
 * API-key authentication and scopes. Keys are looked up by hash; lookups are memoised for a few
 * seconds (`API_KEY_CACHE_SECONDS`) and dropped at once when this process revokes or is told of a revocation.
 */
import type { Middleware } from 'koa';
import { findActiveApiKey, type ApiKey, type KeyScope } from '../../db/queries/api-keys';
import type { Database } from '../../db/pool';
import { ApiError } from './errors';
import type { ApiState } from './state';

interface CachedLookup {
  key: ApiKey | undefined;
  expiresAt: number;
}

export class ApiKeyResolver {
  private readonly cache = new Map<string, CachedLookup>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
  ) {}

  async resolve(secret: string): Promise<ApiKey | undefined> {
    const now = Date.now();
    const cached = this.cache.get(secret);
    if (cached && cached.expiresAt > now) return cached.key;
    const key = await findActiveApiKey(this.db, secret);
    if (this.ttlMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(secret, { key, expiresAt: now + this.ttlMs });
    }
    return key;
  }

  /** Forget every memoised lookup (after a key is created or revoked). */
  clear(): void {
    this.cache.clear();
  }
}

export function authenticate(resolver: ApiKeyResolver): Middleware<ApiState> {
  return async (ctx, next) => {
    const secret = ctx.get('x-api-key');
    if (!secret) throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header');
    const key = await resolver.resolve(secret);
    if (!key) throw new ApiError('MISSING_API_KEY', 'Invalid API key');
    ctx.state.apiKey = key;
    await next();
  };
}

const RANK: Record<KeyScope, number> = { read: 0, write: 1, admin: 2 };

/** Refuses keys below `scope`: a read-only key on a write route is READ_ONLY_API_KEY. */
export function requireScope(scope: Exclude<KeyScope, 'read'>): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.apiKey;
    if (!key) throw new ApiError('MISSING_API_KEY', 'Missing API key: send it in the x-api-key header');
    if (key.scope === 'read') throw new ApiError('READ_ONLY_API_KEY', 'This API key is read-only and cannot be used for write operations');
    if (RANK[key.scope] < RANK[scope]) throw new ApiError('ADMIN_SCOPE_REQUIRED', 'This operation requires an API key with the admin scope');
    await next();
  };
}
