/**
 * Mounts declared operations on the API's router: `public` ones as they are, the others behind authentication and
 * rate limiting, each behind the scope check its `access` names. Before its handler runs, the request's path
 * parameters, query and body (read up to the operation's limit) are validated with the operation's schemas, in that
 * order, and the handler is handed what they parsed.
 */
import type { Middleware } from 'koa';
import { requirePartnerScope, requireScope } from '../framework/auth';
import { readJsonBody } from '../framework/body';
import type { ApiState } from '../framework/state';
import { parseBody, parseParams, parseQuery } from '../framework/validation';
import type { ApiServices } from '../services';
import type { OperationRouter } from './dispatch';
import type { Access, ApiContext, Operation, RequestInput, Resource } from './operation';

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

/** The request as the operation's schemas parse it; a field that fails answers with the code the operation names for it. */
async function requestInput(operation: Operation, ctx: ApiContext, bodyLimitBytes: number): Promise<RequestInput> {
  const codes = operation.fieldCodes ?? {};
  const params = operation.params && parseParams(operation.params, ctx.params, codes);
  const query = operation.query && parseQuery(operation.query, ctx.query, codes);
  const body = operation.body && parseBody(operation.body, await readJsonBody(ctx, bodyLimitBytes), codes);
  return { params, query, body };
}

/** Declares every operation of `resources` on `router`, keyed ones behind `keyed` (authentication, rate limiting). */
export function mountResources(router: OperationRouter, keyed: readonly Middleware<ApiState>[], services: ApiServices, resources: readonly Resource[]): void {
  for (const operation of resources.flatMap((resource) => resource.operations)) {
    const handler = operation.handler(services);
    const bodyLimitBytes = Math.max(services.config.BODY_LIMIT_BYTES, operation.bodyLimitBytes ?? 0);
    const handle: Middleware<ApiState> = async (ctx) => {
      // Parsed with this operation's own schemas, so it is the input its handler is typed for (`never` in the erased type).
      await handler(ctx, (await requestInput(operation, ctx, bodyLimitBytes)) as never);
    };
    const gate = operation.access === 'public' ? [] : keyed;
    router.add(operation.method, operation.path, operation.operationId, [...gate, ...scopeCheck(operation.access), handle]);
  }
}
