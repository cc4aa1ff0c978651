/**
 * In-process response cache. Entries are serialised JSON, grouped by tag (`prices`, `status`, …),
 * live at most their route's lifetime, and a write that changes an answer invalidates its tag at once.
 * Concurrent misses for one key share a single computation.
 */

interface Entry {
  body: string;
  expiresAt: number;
}

export type CacheTag = 'prices' | 'candles' | 'catalogue' | 'status' | 'session-limits' | 'corporate-actions';

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly generations = new Map<CacheTag, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The cached JSON for `key`, or the JSON of `compute()` stored for `ttlMs`. */
  async json(tag: CacheTag, key: string, ttlMs: number, compute: () => Promise<unknown>): Promise<string> {
    const fullKey = `${tag}\u0000${key}`;
    const entry = this.entries.get(fullKey);
    if (entry && entry.expiresAt > this.now()) return entry.body;
    const pending = this.inFlight.get(fullKey);
    if (pending) return pending;

    const generation = this.generations.get(tag) ?? 0;
    const computation = (async () => {
      try {
        const body = JSON.stringify(await compute());
        if (ttlMs > 0 && (this.generations.get(tag) ?? 0) === generation) {
          this.entries.set(fullKey, { body, expiresAt: this.now() + ttlMs });
        }
        return body;
      } finally {
        this.inFlight.delete(fullKey);
      }
    })();
    this.inFlight.set(fullKey, computation);
    return computation;
  }

  /** Drops every entry of `tag`; computations already running are not stored. */
  invalidate(tag: CacheTag): void {
    this.generations.set(tag, (this.generations.get(tag) ?? 0) + 1);
    const prefix = `${tag}\u0000`;
    for (const key of this.entries.keys()) {
      if (key.startsWith(prefix)) this.entries.delete(key);
    }
    for (const key of this.inFlight.keys()) {
      if (key.startsWith(prefix)) this.inFlight.delete(key);
    }
  }
}
