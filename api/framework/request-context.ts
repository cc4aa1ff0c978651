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
import { httpRequestDuration, httpRequests } from '../../metrics/metrics';
import { clientAddressOf } from './client-address';
import type { ApiState } from './state';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;
/** What a client is told to wait while the database is unreachable, and after any other 503 that names no time of its own. */
const UNAVAILABLE_RETRY_SECONDS = 5;

export function requestContext(options: { logger: Logger; baseUrl: string; trustedProxies: readonly string[] }): Middleware<ApiState> {
  const { logger, baseUrl } = options;
  const clientAddress = clientAddressOf(options.trustedProxies);
  /** Counts the answer in the HTTP metrics and answers its latency in ms. */
  const measure = (ctx: Parameters<Middleware<ApiState>>[0], started: bigint): number => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // The operation the request matched, or `none`.
    const operation = ctx.state.operationId ?? 'none';
    httpRequests.inc({ operation, method: ctx.method, status: String(ctx.status) });
    httpRequestDuration.observe({ operation, method: ctx.method }, seconds);
    return seconds * 1000;
  };
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.clientAddress = clientAddress(ctx.request.socket.remoteAddress ?? '', ctx.get('x-forwarded-for'));
    const offered = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError('RESOURCE_NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      if (error instanceof ClientAborted) {
        // Nobody is left to read an answer; the one set here only keeps the answer check quiet.
        ctx.status = 400;
        ctx.body = errorBody(baseUrl, 'INVALID_REQUEST_BODY', error.message);
        const latencyMs = measure(ctx, started);
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
      // Every 503 says when to come back, as the contract documents: the error's own Retry-After, else the default.
      if (apiError.status === 503 && apiError.headers['Retry-After'] === undefined) ctx.set('Retry-After', String(UNAVAILABLE_RETRY_SECONDS));
      ctx.body = errorBody(baseUrl, apiError.code, apiError.message);
    }
    const latencyMs = measure(ctx, started);
    logger.info(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, latencyMs: Math.round(latencyMs * 100) / 100, keyId: ctx.state.apiKey?.id },
      'request',
    );
  };
}
