/**
 * Mounts declared operations: `public` ones on the router without authentication, the others on the keyed router
 * (authentication and rate limiting in front), each behind the scope check its `access` names.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { requirePartnerScope, requireScope } from '../framework/auth';
import type { ApiState } from '../framework/state';
import type { ApiServices } from '../services';
import { routerPath, type Access, type Resource } from './operation';

function scopeCheck(access: Access): Middleware<ApiState>[] {
  switch (access) {
    case 'public':
    case 'read':
      return [];
    case 'partner':
      return [requirePartnerScope()];
    default:
      return [requireScope(access)];
  }
}

export function mountResources(routers: { open: Router<ApiState>; keyed: Router<ApiState> }, services: ApiServices, resources: readonly Resource[]): void {
  for (const operation of resources.flatMap((resource) => resource.operations)) {
    const router = operation.access === 'public' ? routers.open : routers.keyed;
    router.register(routerPath(operation.path), [operation.method.toUpperCase()], [...scopeCheck(operation.access), operation.handler(services)], {
      name: operation.operationId,
    });
  }
}
