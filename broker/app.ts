/** Builds the sandbox's Koa app: request context (ids, errors, logs), its error reference, then the /v1 routes. */
import Router from '@koa/router';
import Koa from 'koa';
import { BROKER_ERROR_CODES, BrokerError } from './errors';
import { basicAuth } from './framework/basic-auth';
import { requestContext } from './framework/request-context';
import type { BrokerState } from './framework/state';
import { brokerRouter } from './routes/router';
import { tradingRouter } from './routes/trading/router';
import type { BrokerServices } from './services';

export function createBrokerApp(services: BrokerServices): Koa<BrokerState> {
  const koa = new Koa<BrokerState>();
  koa.silent = true;
  koa.use(requestContext({ logger: services.logger, baseUrl: () => services.baseUrl }));

  const docs = new Router<BrokerState>();
  docs.get('/docs/errors', (ctx) => {
    ctx.body = {
      errors: Object.entries(BROKER_ERROR_CODES).map(([code, definition]) => ({ code, status: definition.status, description: definition.description })),
    };
  });
  koa.use(docs.routes());

  // One failed-authentication budget per client address across both route sets.
  const authenticate = basicAuth(services.db, { failuresPerMinute: services.authFailuresPerMinute });
  for (const router of [brokerRouter(services, authenticate), tradingRouter(services, authenticate)]) {
    koa.use(router.routes());
    koa.use(
      router.allowedMethods({
        throw: true,
        methodNotAllowed: () => new BrokerError('METHOD_NOT_ALLOWED', 'Method not allowed for this route'),
        notImplemented: () => new BrokerError('METHOD_NOT_ALLOWED', 'Method not allowed for this route'),
      }),
    );
  }
  return koa;
}
