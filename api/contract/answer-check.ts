/**
 * Checks every answer against the OpenAPI document: the status must be one the matched operation declares, a JSON
 * body must match that status's schema (an error's code among the operation's codes for it), a stream must be a
 * stream. The test suite runs every app with this on, so each real answer a test provokes is checked and the
 * document cannot drift from the code; `CHECK_ANSWERS=true` turns it on in a running service.
 *
 * A violation is logged and, with `failAnswers`, replaces the answer by 500 INTERNAL_ERROR naming it, so the
 * request that showed it fails where it ran.
 */
import { gunzipSync } from 'node:zlib';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../config/logger';
import { errorBody } from '../../domain/errors';
import type { ApiState } from '../framework/state';
import type { OpenApiDocument } from './document';

interface Route {
  method: string;
  pattern: RegExp;
  path: string;
  operationId: string;
}

/** An answer as a client receives it, with the operation that gave it (none for the router's own 404 and 405). */
export interface CheckedAnswer {
  operationId?: string;
  status: number;
  body: unknown;
}

/** Compiles the document's paths into matchers, in document order (the order routes are mounted and matched). */
function routesOf(document: OpenApiDocument): Route[] {
  return Object.entries(document.paths).flatMap(([path, methods]) => {
    // As the router matches: one segment per parameter, and a trailing slash or none.
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`);
    return Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), pattern, path, operationId: String(operation.operationId) }));
  });
}

function pointer(...segments: string[]): string {
  return segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: 'openapi' });
    this.routes = routesOf(document);
  }

  private validator(path: string, method: string, status: string, contentType: string): ValidateFunction {
    const ref = `openapi#/${pointer('paths', path, method, 'responses', status, 'content', contentType, 'schema')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  private errorValidator(): ValidateFunction {
    let validate = this.validators.get('error');
    if (!validate) {
      validate = this.ajv.compile({ $ref: 'openapi#/components/schemas/ErrorResponse' });
      this.validators.set('error', validate);
    }
    return validate;
  }

  /** The operation `method path` reaches, if any. */
  operationOf(method: string, path: string): string | undefined {
    return this.route(method, path)?.operationId;
  }

  private route(method: string, path: string): Route | undefined {
    return this.routes.find((candidate) => candidate.method === method && candidate.pattern.test(path));
  }

  /** What is wrong with an answer, or undefined when it matches the document. */
  problem(method: string, path: string, status: number, contentType: string | undefined, body: unknown): string | undefined {
    if (method === 'HEAD' || method === 'OPTIONS') return undefined;
    const route = this.route(method, path);
    if (!route) {
      // No operation: the router's own 404 and 405 answers, in the error shape.
      const validate = this.errorValidator();
      return validate(body) ? undefined : `${status} answer to an unrouted ${method} ${path}: ${this.ajv.errorsText(validate.errors)}`;
    }
    const responses = this.document.paths[route.path]![route.method.toLowerCase()]!.responses;
    const declared = responses[String(status)] as { content?: Record<string, unknown> } | undefined;
    const where = `${method} ${route.path} answered ${status}`;
    if (!declared) return `${where}, a status the document does not declare for it`;
    const media = (contentType ?? '').split(';')[0]!.trim();
    if (!declared.content) return body === undefined || body === null || body === '' ? undefined : `${where} with a body the document does not declare`;
    if (!declared.content[media]) return `${where} as ${media || 'no content type'}; the document declares ${Object.keys(declared.content).join(', ')}`;
    if (media !== 'application/json') return undefined;
    const validate = this.validator(route.path, route.method.toLowerCase(), String(status), media);
    return validate(body) ? undefined : `${where}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  }
}

/** The JSON an answer will carry, as a client parses it (gzip undone, strings parsed), or the raw body. */
function answerBody(ctx: Context): unknown {
  const body: unknown = ctx.body;
  if (!ctx.response.is('json')) return body;
  if (Buffer.isBuffer(body)) {
    const text = (ctx.response.get('Content-Encoding') === 'gzip' ? gunzipSync(body) : body).toString('utf8');
    return JSON.parse(text) as unknown;
  }
  if (typeof body === 'string') return JSON.parse(body) as unknown;
  return JSON.parse(JSON.stringify(body)) as unknown;
}

export interface CheckAnswersOptions {
  checker: AnswerChecker;
  logger: Logger;
  baseUrl: string;
  failAnswers: boolean;
  /** Told of every answer that matches the document (the examples recorder). */
  observe?: (answer: CheckedAnswer) => void;
}

export function checkAnswers(options: CheckAnswersOptions): Middleware<ApiState> {
  const { checker, logger, baseUrl, failAnswers, observe } = options;
  return async (ctx, next) => {
    await next();
    const body = answerBody(ctx);
    const problem = checker.problem(ctx.method, ctx.path, ctx.status, ctx.response.get('Content-Type'), body);
    if (!problem) {
      observe?.({ operationId: checker.operationOf(ctx.method, ctx.path), status: ctx.status, body });
      return;
    }
    logger.error({ requestId: ctx.state.requestId, problem }, 'answer does not match the OpenAPI document');
    if (!failAnswers) return;
    ctx.remove('Content-Encoding');
    ctx.status = 500;
    ctx.body = errorBody(baseUrl, 'INTERNAL_ERROR', `Answer does not match the OpenAPI document: ${problem}`);
  };
}
