/**
 * An API operation declared once: its method and path, who may call it, the zod schemas of its parameters, body
 * and answers, the error codes it can answer with, and its handler. The app mounts routes from these declarations
 * and the OpenAPI document is generated from the same ones, so the two cannot disagree.
 */
import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { ErrorCode } from '../../domain/error-codes';
import type { ApiState } from '../framework/state';
import type { ApiServices } from '../services';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/**
 * Who may call an operation: `public` anyone, without a key; `read` any key; `write` a write or admin key;
 * `admin` an admin key; `partner` only the partner-scoped key the issuer gave the brokerage.
 */
export type Access = 'public' | 'read' | 'write' | 'admin' | 'partner';

/** One answer: its JSON schema (none for 204), or another media type (live streams, the error reference page). */
export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: 'text/event-stream' | 'text/html';
  /** Response headers worth a client's attention, by name, with what each says. */
  headers?: Record<string, string>;
}

export interface Operation {
  method: HttpMethod;
  /** Path under `/v1` in OpenAPI form: `/assets/{symbol}/prices/latest`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  access: Access;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the operation reads, each with what it does. */
  headers?: Record<string, string>;
  body?: z.ZodType;
  /** Answers other than errors, by HTTP status. */
  answers: Partial<Record<200 | 201 | 202 | 204 | 503, Answer>>;
  /** The codes the operation itself can refuse with; the ones every operation shares are added by `errorCodesOf`. */
  errors: readonly ErrorCode[];
  handler: (services: ApiServices) => Middleware<ApiState>;
}

/** A resource: the operations of one router, in matching order, under one OpenAPI tag. */
export interface Resource {
  tag: string;
  description: string;
  operations: readonly Operation[];
}

/** Identity, for type checking where an operation is declared. */
export function defineOperation(operation: Operation): Operation {
  return operation;
}

const SCOPE_ERRORS: Record<Access, readonly ErrorCode[]> = {
  public: [],
  read: [],
  write: ['READ_ONLY_API_KEY'],
  admin: ['READ_ONLY_API_KEY', 'ADMIN_SCOPE_REQUIRED'],
  partner: ['PARTNER_SCOPE_REQUIRED'],
};

const BODY_ERRORS: readonly ErrorCode[] = ['INVALID_REQUEST_BODY', 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

/** What any authenticated request can meet: no key, too many requests, an unexpected failure, the database down. */
const KEYED_ERRORS: readonly ErrorCode[] = ['MISSING_API_KEY', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** Every code an operation can answer with: its own, its scope's, its body's and parameters', and the shared ones. */
export function errorCodesOf(operation: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>([...operation.errors, ...SCOPE_ERRORS[operation.access]]);
  if (operation.body) BODY_ERRORS.forEach((code) => codes.add(code));
  if (operation.params || operation.query) codes.add('INVALID_PARAMETER');
  (operation.access === 'public' ? (['INTERNAL_ERROR'] as const) : KEYED_ERRORS).forEach((code) => codes.add(code));
  return [...codes];
}

/** `/assets/{symbol}/market` as the router writes it: `/assets/:symbol/market`. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
