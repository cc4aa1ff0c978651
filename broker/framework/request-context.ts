/**
 * Outermost middleware of the sandbox: a request id, every failure rendered as `{code, message, documentation}`
 * (an unreachable database as 503 SERVICE_UNAVAILABLE with Retry-After, not 500), one log line per request (never
 * the credential's secret); a client gone before its body was read is logged as such.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { ClientAborted } from '../../domain/errors';
import type { Logger } from '../../config/logger';
import { isDatabaseUnreachable } from '../../db/pool';
import { BrokerError, brokerErrorBody } from '../errors';
import type { BrokerState } from './state';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;
/** What a client is told to wait while the database is unreachable, as the issuer's API tells it. */
const UNAVAILABLE_RETRY_SECONDS = 5;

/** `baseUrl` is read per failure: the sandbox learns its own address only once it listens. */
export function requestContext(options: { logger: Logger; baseUrl: () => string }): Middleware<BrokerState> {
  const { logger, baseUrl } = options;
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const offered = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('x-request-id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new BrokerError('NOT_FOUND', `No route for ${ctx.method} ${ctx.path}`);
    } catch (error) {
      if (error instanceof ClientAborted) {
        ctx.status = 400;
        ctx.body = brokerErrorBody(baseUrl(), 'INVALID_REQUEST_BODY', error.message);
        logger.info({ requestId, method: ctx.method, path: ctx.path, credential: ctx.state.credential?.key, clientAborted: true }, 'broker request aborted by the client');
        return;
      }
      const brokerError =
        error instanceof BrokerError
          ? error
          : isDatabaseUnreachable(error)
            ? new BrokerError('SERVICE_UNAVAILABLE', 'The database cannot be reached; retry shortly', { cause: error, headers: { 'Retry-After': String(UNAVAILABLE_RETRY_SECONDS) } })
            : new BrokerError('INTERNAL_ERROR', `Internal error (request id ${requestId})`, { cause: error });
      if (brokerError.code === 'INTERNAL_ERROR') logger.error({ requestId, err: error }, 'broker request failed');
      ctx.status = brokerError.status;
      ctx.set(brokerError.headers);
      ctx.body = brokerErrorBody(baseUrl(), brokerError.code, brokerError.message);
    }
    const latencyMs = Number(process.hrtime.bigint() - started) / 1e6;
    logger.debug(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, latencyMs: Math.round(latencyMs * 100) / 100, credential: ctx.state.credential?.key },
      'broker request',
    );
  };
}
