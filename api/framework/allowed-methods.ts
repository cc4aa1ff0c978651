/**
 * A known route asked with another method: 405 METHOD_NOT_ALLOWED in the error shape, with the `Allow` header
 * listing the methods the route has (RFC 9110 §15.5.6). Unknown methods are answered the same way.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiState } from './state';

export function allowedMethods(router: Router<ApiState>): Middleware<ApiState> {
  const inner = router.allowedMethods() as Middleware<ApiState>;
  return async (ctx, next) => {
    await inner(ctx, next);
    if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
      throw new ApiError('METHOD_NOT_ALLOWED', 'Method not allowed for this route', { headers: { Allow: ctx.response.get('Allow') } });
    }
  };
}
