/**
 * Outermost middleware: gives every request an id, renders every failure as `{code, message, documentation}`
 * (an unreachable database as 503 SERVICE_UNAVAILABLE with Retry-After, not 500), and writes one structured log
 * line per request (request id, method, path, status, latency, key id — never the key itself). A client that went
 * away before its body was read is logged as such (`request aborted by the client`), not as a failure of ours.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError, ClientAborted, errorBody } from '../../domain/errors';
import type { Logger } from '../../config/logger';
import { isDatabaseUnreachable } from '../../db/pool';
import type { ApiState } from './state';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;
/** What a client is told to wait while the database is unreachable. */
const UNAVAILABLE_RETRY_SECONDS = 5;

export function requestContext(options: { logger: Logger; baseUrl: string }): Middleware<ApiState> {
  const { logger, baseUrl } = options;
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const offered = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      if (error instanceof ClientAborted) {
        // Nobody is left to read an answer; the one set here only keeps the answer check quiet.
        ctx.status = 400;
        ctx.body = errorBody(baseUrl, 'INVALID_REQUEST_BODY', error.message);
        const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info(
          { requestId, method: ctx.method, path: ctx.path, latencyMs: Math.round(latencyMs * 100) / 100, keyId: ctx.state.apiKey?.id, clientAborted: true },
          'request aborted by the client',
        );
        return;
      }
      const apiError =
        error instanceof ApiError
          ? error
          : isDatabaseUnreachable(error)
            ? new ApiError('SERVICE_UNAVAILABLE', 'The database cannot be reached; retry shortly', {
                cause: error,
                headers: { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) },
              })
            : new ApiError('INTERNAL_ERROR', `Internal error (request id ${requestId})`, { cause: error });
      if (apiError.code === 'INTERNAL_ERROR') {
        logger.error({ requestId, err: error }, 'request failed');
      }
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = errorBody(baseUrl, apiError.code, apiError.message);
    }
    const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, latencyMs: Math.round(latencyMs * 100) / 100, keyId: ctx.state.apiKey?.id },
      'request',
    );
  };
}
