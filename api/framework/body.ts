/** Reads a JSON request body with a size limit (access/json-body.ts), refused as the API's errors. */
import type { Context } from 'koa';
import { readJsonBody as readBody } from '../../access/json-body';
import { ApiError } from '../../domain/errors';

export function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  return readBody(ctx, limitBytes, (code, message, cause) => new ApiError(code, message, { cause }));
}
