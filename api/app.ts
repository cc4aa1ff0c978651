/**
 * Builds the Koa application: request context (ids, errors, logs), the public error reference,
 * then authentication and rate limiting in front of every /v1 router.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { errorReference } from './docs/error-reference';
import { allowedMethods } from './framework/allowed-methods';
import { authenticate } from './framework/auth';
import { RateLimiter, rateLimit } from './framework/rate-limit';
import { requestContext } from './framework/request-context';
import type { ApiState } from './framework/state';
import { healthRouter } from './health/router';
import { createServices, type ApiDependencies, type ApiServices } from './services';
import { accountsRouter } from './v1/accounts/router';
import { assetsRouter } from './v1/assets/router';
import { attestationsRouter } from './v1/attestations/router';
import { limitsRouter } from './v1/limits/router';
import { marketDataRouter } from './v1/market-data/router';
import { statusRouter } from './v1/status/router';
import { streamsRouter } from './v1/streams/router';
import { tickersRouter } from './v1/tickers/router';
import { tokenizationRouter } from './v1/tokenization/router';
import { workflowsRouter } from './v1/workflows/router';

export interface App {
  koa: Koa<ApiState>;
  services: ApiServices;
}

export function createApp(dependencies: ApiDependencies): App {
  const services = createServices(dependencies);
  const koa = new Koa<ApiState>();
  koa.silent = true;

  koa.use(requestContext({ logger: services.logger, baseUrl: services.config.PUBLIC_BASE_URL }));

  const docs = new Router<ApiState>();
  docs.get('/docs/errors', errorReference());
  koa.use(docs.routes());
  koa.use(healthRouter(services).routes());

  const v1 = new Router<ApiState>({ prefix: '/v1' });
  v1.use(authenticate(services.keys, { failuresPerMinute: services.config.AUTH_FAILURES_PER_MINUTE }));
  v1.use(rateLimit(new RateLimiter(), { perSecond: services.config.RATE_LIMIT_PER_SECOND, burst: services.config.RATE_LIMIT_BURST }));
  for (const router of [assetsRouter, attestationsRouter, tickersRouter, limitsRouter, statusRouter, marketDataRouter, workflowsRouter, accountsRouter, streamsRouter, tokenizationRouter]) {
    v1.use(router(services).routes());
  }
  koa.use(v1.routes());
  koa.use(allowedMethods(v1));

  return { koa, services };
}
