/**
 * The console's forms act through the API's own declared operations (api/contract/operation.ts): the form's fields
 * are parsed with the operation's schemas and field codes, exactly as the mounted route parses a request, and its
 * handler runs with the signed-in admin key — so a console action and the admin route it mirrors cannot disagree.
 */
import type { Operation } from '../api/contract/operation';
import { parseBody, parseParams, parseQuery } from '../api/framework/validation';
import type { ApiServices } from '../api/services';
import type { ConsoleContext, SignedIn } from './session';

const handlers = new WeakMap<Operation, ReturnType<Operation['handler']>>();

/** Runs `operation` for the signed-in operator; answers what its handler set as the body. Throws its ApiError. */
export async function invokeOperation(
  services: ApiServices,
  operation: Operation,
  ctx: ConsoleContext,
  session: SignedIn,
  input: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown },
): Promise<unknown> {
  const codes = operation.fieldCodes ?? {};
  const parsed = {
    params: operation.params && parseParams(operation.params, input.params ?? {}, codes),
    query: operation.query && parseQuery(operation.query, input.query ?? {}, codes),
    body: operation.body && parseBody(operation.body, input.body, codes),
  };
  let handler = handlers.get(operation);
  if (!handler) {
    handler = operation.handler(services);
    handlers.set(operation, handler);
  }
  const previous = ctx.state.apiKey;
  ctx.state.apiKey = session.key;
  try {
    await handler(ctx as never, parsed as never);
    return ctx.body;
  } finally {
    ctx.state.apiKey = previous;
    ctx.body = undefined;
  }
}
