/**
 * Looking up API keys, for every transport that takes one (the HTTP API, the gRPC streams): keys are found by hash,
 * lookups are memoised for a few seconds (`API_KEY_CACHE_SECONDS`) and dropped at once when this process revokes or
 * is told of a revocation, and concurrent lookups of one key share one query.
 */
import { findActiveApiKey, type ApiKey } from '../db/queries/api-keys';
import type { Database } from '../db/pool';

interface CachedLookup {
  key: ApiKey | undefined;
  expiresAt: number;
}

export class ApiKeyResolver {
  private readonly cache = new Map<string, CachedLookup>();
  /** Lookups under way, by secret: concurrent requests with one key share one query. */
  private readonly inFlight = new Map<string, Promise<ApiKey | undefined>>();
  /** Secrets that were valid at their last lookup, memoised or not (bounded). */
  private readonly knownValid = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
  ) {}

  async resolve(secret: string): Promise<ApiKey | undefined> {
    const cached = this.cache.get(secret);
    if (cached && cached.expiresAt > Date.now()) return cached.key;
    let lookup = this.inFlight.get(secret);
    if (!lookup) {
      lookup = this.lookUp(secret).finally(() => this.inFlight.delete(secret));
      this.inFlight.set(secret, lookup);
    }
    return await lookup;
  }

  /** Whether a lookup of `secret` is under way (a request for it now shares that one). */
  lookingUp(secret: string): boolean {
    return this.inFlight.has(secret);
  }

  private async lookUp(secret: string): Promise<ApiKey | undefined> {
    const key = await findActiveApiKey(this.db, secret);
    if (key) {
      if (this.knownValid.size > 10_000) this.knownValid.clear();
      this.knownValid.add(secret);
    } else {
      this.knownValid.delete(secret);
    }
    if (this.ttlMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(secret, { key, expiresAt: Date.now() + this.ttlMs });
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
