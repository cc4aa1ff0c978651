/**
 * The API's router: finds the declared operation a request names and runs its middleware, composed once when mounted
 * (authentication and rate limiting for keyed operations, the scope check, the handler) instead of per request, as
 * a general-purpose router does. Paths match segment by segment against the operations' templates
 * (`/v1/assets/{symbol}/prices/latest`), in declaration order: literals case-insensitively, parameters URL-decoded
 * into `ctx.params`; one trailing slash is ignored, and GET operations answer HEAD. A path that has operations under
 * other methods only answers 405 METHOD_NOT_ALLOWED with `Allow` (OPTIONS: 200 with `Allow`), as does a method no
 * operation uses on any path; any other path goes on to the next middleware (the 404).
 */
import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import type { ApiState } from '../framework/state';

type Segment = { literal: string } | { param: string };

/** Any other method is refused on every path. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

interface Route {
  segments: Segment[];
  /** By method: the operation's id and its composed middleware. */
  methods: Map<string, { operationId: string; run: Middleware<ApiState> }>;
}

/** Runs `middleware` in order, each handing on to the next, the last to the caller's `next`. */
function chain(middleware: readonly Middleware<ApiState>[]): Middleware<ApiState> {
  return middleware.reduceRight<Middleware<ApiState>>(
    (rest, current) => (ctx, next) => current(ctx, () => rest(ctx, next)),
    (_ctx, next) => next(),
  );
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path's parameters when `parts` (the path split at `/`) has the route's shape. */
function matchSegments(route: Route, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index += 1) {
    const segment = route.segments[index]!;
    const part = parts[index]!;
    if ('literal' in segment) {
      if (segment.literal !== part.toLowerCase()) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.param] = decoded(part);
    }
  }
  return params;
}

export class OperationRouter {
  /** Routes by their number of segments, each list in declaration order. */
  private readonly routes = new Map<number, Route[]>();
  private readonly byTemplate = new Map<string, Route>();

  /** Declares `method path` (a template with `{name}` parameters) as `operationId`, answered by `middleware` in order. */
  add(method: string, path: string, operationId: string, middleware: readonly Middleware<ApiState>[]): void {
    let route = this.byTemplate.get(path);
    if (!route) {
      const segments = path.split('/').map((part): Segment => (/^\{\w+\}$/.test(part) ? { param: part.slice(1, -1) } : { literal: part.toLowerCase() }));
      route = { segments, methods: new Map() };
      this.byTemplate.set(path, route);
      this.routes.set(segments.length, [...(this.routes.get(segments.length) ?? []), route]);
    }
    route.methods.set(method.toUpperCase(), { operationId, run: chain(middleware) });
  }

  middleware(): Middleware<ApiState> {
    return (ctx, next) => {
      const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
      const parts = path.split('/');
      let allowed: Route | undefined;
      for (const route of this.routes.get(parts.length) ?? []) {
        const params = matchSegments(route, parts);
        if (!params) continue;
        const operation = route.methods.get(ctx.method) ?? (ctx.method === 'HEAD' ? route.methods.get('GET') : undefined);
        if (!operation) {
          allowed ??= route;
          continue;
        }
        ctx.params = params;
        ctx.state.operationId = operation.operationId;
        return operation.run(ctx, next);
      }
      if (!allowed && KNOWN_METHODS.has(ctx.method)) return next();
      const methods = allowed ? [...allowed.methods.keys()] : [];
      const allow = (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
        ctx.set('Allow', allow);
        return;
      }
      throw new ApiError('METHOD_NOT_ALLOWED', 'Method not allowed for this route', { headers: { Allow: allow } });
    };
  }
}
