/**
 * Token-bucket rate limiting, reported in the IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "<policy>";q=<burst>;w=<seconds>` names the bucket (it holds `q` requests and refills
 * completely within `w` seconds, at the configured rate), and `RateLimit: "<policy>";r=<remaining>;t=<seconds>`
 * says what is left now and when the quota is back: while requests are admitted `t` is the time until the bucket
 * is full again, on a refusal it is the time until the next request is admitted, equal to `Retry-After`.
 *
 * Two policies use it: `key` per API key (default 50 requests/s, burst 100; per-key overrides in the keys table;
 * api/framework/rate-limit.ts) and `failed-auth` per client address (10 failed authentications a minute, see
 * failed-auth.ts), which the API, the gRPC streams and the brokerage sandbox share. Buckets live in this process:
 * with several replicas each enforces the limit on its own share.
 */
interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimitDefaults {
  perSecond: number;
  burst: number;
}

/** A named bucket shape: `burst` requests at once, refilled at `perSecond`. */
export interface RateLimitPolicy extends RateLimitDefaults {
  name: string;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole requests still admitted right now. */
  remaining: number;
  /** Seconds until the quota is back (see the module header). */
  resetSeconds: number;
  /** Seconds until the next request is admitted (at least 1). */
  retryAfterSeconds: number;
}

const MAX_BUCKETS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Takes one token; returns what is left and, when refused, the seconds until a token is back. */
  take(id: string, perSecond: number, burst: number): TakeResult {
    const bucket = this.refill(id, perSecond, burst);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return this.report(bucket, allowed, perSecond, burst);
  }

  /** What `take` would answer, without taking anything. */
  peek(id: string, perSecond: number, burst: number): TakeResult {
    const bucket = this.refill(id, perSecond, burst);
    return this.report(bucket, bucket.tokens >= 1, perSecond, burst);
  }

  /** Gives back a token taken by `take` (the request turned out not to count). */
  refund(id: string, burst: number): void {
    const bucket = this.buckets.get(id);
    if (bucket) bucket.tokens = Math.min(burst, bucket.tokens + 1);
  }

  private refill(id: string, perSecond: number, burst: number): Bucket {
    const now = this.now();
    let bucket = this.buckets.get(id);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.dropFull(perSecond, burst, now);
      bucket = { tokens: burst, updatedAt: now };
      this.buckets.set(id, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
    bucket.updatedAt = now;
    return bucket;
  }

  /** Forgets buckets that have refilled completely (they are the same as no bucket). */
  private dropFull(perSecond: number, burst: number, now: number): void {
    for (const [id, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond >= burst) this.buckets.delete(id);
    }
  }

  private report(bucket: Bucket, allowed: boolean, perSecond: number, burst: number): TakeResult {
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: allowed ? Math.ceil((burst - bucket.tokens) / perSecond) : retryAfterSeconds,
      retryAfterSeconds,
    };
  }
}

/** The RateLimit-Policy and RateLimit header fields of one answer (plus Retry-After on a refusal). */
export function rateLimitHeaders(policy: RateLimitPolicy, result: TakeResult): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.perSecond));
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.burst};w=${window}`,
    RateLimit: `"${policy.name}";r=${result.remaining};t=${result.resetSeconds}`,
    ...(result.allowed ? {} : { 'Retry-After': String(result.retryAfterSeconds) }),
  };
}
