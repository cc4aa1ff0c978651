/**
 * Builds the Koa application: request context (ids, errors, logs), then the operations of api/resources.ts —
 * the public ones as they are, the others behind authentication and rate limiting — and, when configured,
 * a check of every answer against the OpenAPI document; and the operator console under `/console` (console/).
 */
import type Router from '@koa/router';
import Koa from 'koa';
import { failedAuthPolicy, FailedAuthentications } from '../access/failed-auth';
import { RateLimiter } from '../access/rate-limiter';
import { consoleRouter } from '../console/router';
import { AnswerChecker, checkAnswers } from './contract/answer-check';
import { OperationRouter } from './contract/dispatch';
import { mountResources } from './contract/mount';
import { authenticate } from './framework/auth';
import { rateLimit } from './framework/rate-limit';
import { requestContext } from './framework/request-context';
import type { ApiState } from './framework/state';
import { API_RESOURCES, openApiDocument } from './resources';
import { createServices, type ApiDependencies, type ApiServices } from './services';

export interface App {
  koa: Koa<ApiState>;
  services: ApiServices;
}

const checkers = new Map<string, AnswerChecker>();

const isConsolePath = (path: string) => path === '/console' || path.startsWith('/console/');

/** The console's routes and methods, matched only under /console: the API's requests skip its router. */
function onlyUnderConsole(router: Router<ApiState>): Koa.Middleware<ApiState> {
  // A router's middleware adds its own fields (params, router) to whatever context it is given.
  const routes = router.routes() as unknown as Koa.Middleware<ApiState>;
  const methods = router.allowedMethods() as unknown as Koa.Middleware<ApiState>;
  return (ctx, next) => (isConsolePath(ctx.path) ? routes(ctx, () => methods(ctx, next)) : next());
}

function answerChecker(baseUrl: string): AnswerChecker {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = new AnswerChecker(openApiDocument(baseUrl));
    checkers.set(baseUrl, checker);
  }
  return checker;
}

export function createApp(dependencies: ApiDependencies): App {
  const services = createServices(dependencies);
  const { config, logger } = services;
  const koa = new Koa<ApiState>();
  koa.silent = true;

  const check = config.CHECK_ANSWERS ?? 'off';
  if (check !== 'off') {
    const checkAnswer = checkAnswers({
      checker: answerChecker(config.PUBLIC_BASE_URL),
      logger,
      baseUrl: config.PUBLIC_BASE_URL,
      failAnswers: check === 'fail',
      observe: dependencies.observeAnswers,
    });
    // The console's pages are HTML for people, not operations of the document.
    koa.use((ctx, next) => (isConsolePath(ctx.path) ? next() : checkAnswer(ctx, next)));
  }
  koa.use(requestContext({ logger, baseUrl: config.PUBLIC_BASE_URL, trustedProxies: config.TRUSTED_PROXIES ?? [] }));

  // One failed-authentication throttle per process, for the API's keys and the console's sign-in alike.
  const failures = new FailedAuthentications(failedAuthPolicy(config.AUTH_FAILURES_PER_MINUTE));
  const consoleRoutes = consoleRouter(services, { failures, sessionTtlMs: (config.CONSOLE_SESSION_MINUTES ?? 480) * 60_000 });
  koa.use(onlyUnderConsole(consoleRoutes));

  const operations = new OperationRouter();
  const keyed = [
    authenticate(services.keys, { failures }),
    rateLimit(new RateLimiter(), { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST }),
  ];
  mountResources(operations, keyed, services, API_RESOURCES);
  koa.use(operations.middleware());

  return { koa, services };
}
