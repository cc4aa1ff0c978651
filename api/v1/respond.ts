/**
 * Sends a cached JSON answer: the route names its cache tag, key and lifetime. Clients that accept
 * gzip get the compressed copy of large bodies (OHLC answers shrink about tenfold).
 */
import type { Context } from 'koa';
import type { CacheTag } from '../framework/cache';
import type { ApiServices } from '../services';

export async function respondCached(
  ctx: Context,
  services: ApiServices,
  cache: { tag: CacheTag; key: string; ttlMs: number },
  compute: () => Promise<unknown>,
): Promise<void> {
  const body = await services.cache.get(cache.tag, cache.key, cache.ttlMs, compute);
  ctx.type = 'application/json';
  if (body.gzip) {
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = body.gzip;
      return;
    }
  }
  ctx.body = body.json;
}
