/**
 * Per-key token-bucket rate limiting (default 50 requests/s, burst 100; per-key overrides in the keys table).
 * Every response carries RateLimit-Limit/-Remaining/-Reset; a refusal is 429 RATE_LIMITED with Retry-After.
 * Buckets live in this process: with several API replicas each enforces the limit on its own share.
 */
import type { Middleware } from 'koa';
import { ApiError } from './errors';
import type { ApiState } from './state';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimitDefaults {
  perSecond: number;
  burst: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Takes one token; returns what is left and, when refused, the seconds until a token is back. */
  take(id: string, perSecond: number, burst: number): { allowed: boolean; remaining: number; resetSeconds: number; retryAfterSeconds: number } {
    const now = this.now();
    const bucket = this.buckets.get(id) ?? { tokens: burst, updatedAt: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(id, bucket);
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((burst - bucket.tokens) / perSecond),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)),
    };
  }
}

export function rateLimit(limiter: RateLimiter, defaults: RateLimitDefaults): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.apiKey!;
    const perSecond = key.rateLimitPerSecond ?? defaults.perSecond;
    const burst = key.rateLimitBurst ?? defaults.burst;
    const result = limiter.take(key.id, perSecond, burst);
    const headers = {
      'RateLimit-Limit': String(perSecond),
      'RateLimit-Remaining': String(result.remaining),
      'RateLimit-Reset': String(result.resetSeconds),
    };
    if (!result.allowed) {
      throw new ApiError('RATE_LIMITED', `Rate limit of ${perSecond} requests/s exceeded`, {
        headers: { ...headers, 'Retry-After': String(result.retryAfterSeconds) },
      });
    }
    ctx.set(headers);
    await next();
  };
}
