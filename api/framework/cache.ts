/**
 * In-process response cache. Entries are serialised JSON (with a gzip copy for larger bodies),
 * grouped by tag (`prices`, `status`, …), live at most their route's lifetime, and a write that
 * changes an answer invalidates its tag at once. Concurrent misses for one key share one computation.
 */
import { gzipSync, constants as zlib } from 'node:zlib';

export interface CachedBody {
  json: Buffer;
  /** Present when compressing pays off (bodies over a few kilobytes). */
  gzip?: Buffer;
}

interface Entry {
  body: CachedBody;
  storedAt: number;
  expiresAt: number;
}

/** Past this fraction of its lifetime an entry is recomputed in the background while still served. */
const REFRESH_AHEAD = 0.75;

export type CacheTag = 'prices' | 'candles' | 'catalogue' | 'status' | 'session-limits' | 'corporate-actions';

const GZIP_MIN_BYTES = 4_096;

function serialise(value: unknown): CachedBody {
  const json = Buffer.from(JSON.stringify(value));
  // Compressed once per cache lifetime: level 4 costs a few ms for the largest answers (OHLC, ~350 kB).
  return json.length >= GZIP_MIN_BYTES ? { json, gzip: gzipSync(json, { level: 4, strategy: zlib.Z_DEFAULT_STRATEGY }) } : { json };
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<CachedBody>>();
  private readonly generations = new Map<CacheTag, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The cached body for `key`, or the serialised result of `compute()` stored for `ttlMs`. */
  async get(tag: CacheTag, key: string, ttlMs: number, compute: () => Promise<unknown>): Promise<CachedBody> {
    const fullKey = `${tag}\u0000${key}`;
    const now = this.now();
    const entry = this.entries.get(fullKey);
    if (entry && entry.expiresAt > now) {
      if (now - entry.storedAt > (entry.expiresAt - entry.storedAt) * REFRESH_AHEAD && !this.inFlight.has(fullKey)) {
        this.compute(tag, fullKey, ttlMs, compute).catch(() => undefined);
      }
      return entry.body;
    }
    return this.inFlight.get(fullKey) ?? this.compute(tag, fullKey, ttlMs, compute);
  }

  private compute(tag: CacheTag, fullKey: string, ttlMs: number, compute: () => Promise<unknown>): Promise<CachedBody> {
    const generation = this.generations.get(tag) ?? 0;
    // Lifetimes count from when the data was read, not from when the answer was ready.
    const startedAt = this.now();
    const computation = (async () => {
      try {
        const body = serialise(await compute());
        if (ttlMs > 0 && (this.generations.get(tag) ?? 0) === generation) {
          this.entries.set(fullKey, { body, storedAt: startedAt, expiresAt: startedAt + ttlMs });
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
