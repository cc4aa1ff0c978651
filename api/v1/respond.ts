/** Sends a cached JSON answer: the route names its cache tag, key and lifetime. */
import type { Context } from 'koa';
import type { CacheTag } from '../framework/cache';
import type { ApiServices } from '../services';

export async function respondCached(
  ctx: Context,
  services: ApiServices,
  cache: { tag: CacheTag; key: string; ttlMs: number },
  compute: () => Promise<unknown>,
): Promise<void> {
  const body = await services.cache.json(cache.tag, cache.key, cache.ttlMs, compute);
  ctx.type = 'application/json';
  ctx.body = body;
}
