/**
 * An API operation declared once: its method and path, who may call it, the zod schemas of its parameters, body
 * and answers, the error codes it can answer with, and its handler. The app mounts routes from these declarations,
 * validating each request with the declared schemas before the handler sees it, and the OpenAPI document is
 * generated from the same ones, so the two cannot disagree.
 */
import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { ErrorCode } from '../../domain/error-codes';
import type { ApiState } from '../framework/state';
import { codesOfField } from '../framework/validation';
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
  /** A stream's events: the schema of each one's `data`, by event name (written as `x-event-schemas`). */
  events?: Record<string, z.ZodType>;
}

/** The schemas a request is validated with, as an operation declares them. */
export interface RequestSchemas {
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler is handed: the path parameters, query and body as the operation's schemas parsed them. */
export interface RequestInput<S extends RequestSchemas = RequestSchemas> {
  params: Parsed<S['params']>;
  query: Parsed<S['query']>;
  body: Parsed<S['body']>;
}

export type ApiContext = ParameterizedContext<ApiState>;

/** Answers one request; `input` is already validated (a handler never parses it again). */
export type Handler<S extends RequestSchemas = RequestSchemas> = (ctx: ApiContext, input: RequestInput<S>) => void | Promise<void>;

type FieldOf<S> = S extends z.ZodType ? keyof z.input<S> & string : never;

/** The code a failing field answers with, by its name in the params, query or body. */
export type FieldCodes<S extends RequestSchemas = RequestSchemas> = Partial<Record<FieldOf<S['params']> | FieldOf<S['query']> | FieldOf<S['body']>, ErrorCode>>;

/**
 * When a client may retry an operation whose answer it did not get (a network failure, a 429, a 503): `always`
 * (it changes nothing, or changing it twice is the same), `idempotency-key` (only with the same `Idempotency-Key`),
 * `never`. Written in the document as `x-retry`.
 */
export type RetryClass = 'always' | 'idempotency-key' | 'never';

interface Declaration {
  method: HttpMethod;
  /** Path under `/v1` in OpenAPI form: `/assets/{symbol}/prices/latest`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  access: Access;
  /** Request headers the operation reads, each with what it does. */
  headers?: Record<string, string>;
  /** Default `always` for `get`, `never` otherwise (see `retryClassOf`). */
  retry?: RetryClass;
  /**
   * The largest body the operation takes when that is more than the general `BODY_LIMIT_BYTES` (the larger of the two
   * applies).
   */
  bodyLimitBytes?: number;
  /** Answers other than errors, by HTTP status. */
  answers: Partial<Record<200 | 201 | 202 | 204 | 503, Answer>>;
  /**
   * The codes the operation itself can refuse with; those of its scope, its fields (`fieldCodes`), its body and
   * parameters, and the ones every operation shares are added by `errorCodesOf`.
   */
  errors: readonly ErrorCode[];
}

/** An operation as one file declares it: its request schemas type what its handler is handed. */
export interface OperationDeclaration<S extends RequestSchemas> extends Declaration {
  params?: S['params'];
  query?: S['query'];
  body?: S['body'];
  /**
   * The code each field answers with when it fails its schema; a field without one fails with INVALID_PARAMETER
   * (path and query) or INVALID_REQUEST_BODY (body).
   */
  fieldCodes?: FieldCodes<S>;
  handler: (services: ApiServices) => Handler<S>;
}

/** Any declared operation, as resources list it and the mount and the document read it. */
export interface Operation extends Declaration, RequestSchemas {
  fieldCodes?: Partial<Record<string, ErrorCode>>;
  /** Takes the input its own schemas parsed (the mount hands it nothing else). */
  handler: (services: ApiServices) => (ctx: ApiContext, input: never) => void | Promise<void>;
}

/** A resource: the operations of one router, in matching order, under one OpenAPI tag. */
export interface Resource {
  tag: string;
  description: string;
  operations: readonly Operation[];
}

/** Identity, for type checking where an operation is declared: its handler is typed by its own schemas. */
export function defineOperation<P extends z.ZodObject | undefined = undefined, Q extends z.ZodObject | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  operation: OperationDeclaration<{ params: P; query: Q; body: B }>,
): Operation {
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
const KEYED_ERRORS: readonly ErrorCode[] = ['MISSING_API_KEY', 'INVALID_API_KEY', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/** Every code an operation can answer with: its own, its scope's, its fields', its body's and parameters', and the shared ones. */
export function errorCodesOf(operation: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  for (const code of Object.values(operation.fieldCodes ?? {})) if (code) codesOfField(code).forEach((each) => codes.add(each));
  [...operation.errors, ...SCOPE_ERRORS[operation.access]].forEach((code) => codes.add(code));
  if (operation.body) BODY_ERRORS.forEach((code) => codes.add(code));
  if (operation.params || operation.query) codes.add('INVALID_PARAMETER');
  (operation.access === 'public' ? (['INTERNAL_ERROR'] as const) : KEYED_ERRORS).forEach((code) => codes.add(code));
  return [...codes];
}

/** Whether a client may retry the operation: as it declares, else `always` for a read and `never` for a change. */
export function retryClassOf(operation: Operation): RetryClass {
  return operation.retry ?? (operation.method === 'get' ? 'always' : 'never');
}
