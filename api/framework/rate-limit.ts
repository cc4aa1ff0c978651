/**
 * The per-key rate limit of the API: policy `key`, the key's own rate and burst (the keys table) or the defaults
 * (`RATE_LIMIT_PER_SECOND`, `RATE_LIMIT_BURST`), reported in the RateLimit header fields (access/rate-limiter.ts).
 */
import type { Middleware } from 'koa';
import { rateLimitHeaders, type RateLimitDefaults, type RateLimiter } from '../../access/rate-limiter';
import { ApiError } from '../../domain/errors';
import { rateLimitRefusals } from '../../metrics/metrics';
import type { ApiState } from './state';

export function rateLimit(limiter: RateLimiter, defaults: RateLimitDefaults): Middleware<ApiState> {
  return async (ctx, next) => {
    const key = ctx.state.apiKey!;
    const policy = { name: 'key', perSecond: key.rateLimitPerSecond ?? defaults.perSecond, burst: key.rateLimitBurst ?? defaults.burst };
    const result = limiter.take(key.id, policy.perSecond, policy.burst);
    const headers = rateLimitHeaders(policy, result);
    if (!result.allowed) {
      rateLimitRefusals.inc({ transport: 'http', policy: 'key' });
      throw new ApiError('RATE_LIMITED', `Rate limit of ${policy.perSecond} requests/s (burst ${policy.burst}) exceeded`, { headers });
    }
    ctx.set(headers);
    await next();
  };
}
