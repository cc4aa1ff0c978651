/**
 * Every console route as a declaration: its method, its path under `/console` (koa-router form) and the zod schemas
 * of its path and query parameters, each bounded (text by length and without control characters, numbers and times
 * by range, choices by their list). The router validates a request with its route's schemas before the page or action
 * sees it — a failure is a 400 page naming the parameter, never a query the database or the workflow service refuses —
 * and the tests walk these declarations. A filter form sends an empty field for "any": empty is absent.
 */
import { z } from 'zod';
import { instantParameter, parameterText } from '../api/framework/parameters';
import { parseParams, parseQuery } from '../api/framework/validation';
import { identifier } from '../api/v1/tokenization/fields';
import { PARTNER_REQUEST_STATES } from '../api/v1/tokenization/schemas';
import { WORKFLOW_STATUSES } from '../inspection/workflows';
import { CONSOLE_ACTION_NAMES } from './actions';
import type { ConsoleContext } from './session';

/** `schema`, or absent when the field is missing or empty (trimmed). */
function filter<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema.optional());
}

/** A page of a paged list, from 1. */
const pageNumber = z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(1).max(1_000_000).default(1));

/** An audit entry's id, as the audit table numbers them. */
export const AUDIT_ID = /^[1-9]\d{0,17}$/;

/** The notice an action leaves for the page it goes back to: its audit entry, shown when the signed-in key recorded it. */
const notice = { notice: filter(z.string().regex(AUDIT_ID, 'must be an audit entry id')) };

/** Any id the find box takes: a partner request's, an attestation's, a transaction's or a workflow's. */
const anyId = parameterText(1000).min(1);

const none = z.object({});

export interface ConsoleRoute {
  params: z.ZodObject;
  query: z.ZodObject;
}

const route = <P extends z.ZodObject = typeof none, Q extends z.ZodObject = typeof none>(declared: { params?: P; query?: Q }) =>
  ({ params: declared.params ?? none, query: declared.query ?? none }) as { params: P; query: Q };

/** By `METHOD path`. */
export const CONSOLE_ROUTES = {
  'GET /assets/console.css': route({}),
  'GET /assets/console.js': route({}),
  'GET /sign-in': route({}),
  'POST /sign-in': route({}),
  'GET /': route({ query: z.object(notice) }),
  'GET /workflows': route({
    query: z.object({
      ...notice,
      type: filter(parameterText(200)),
      status: filter(z.enum(WORKFLOW_STATUSES)),
      prefix: filter(parameterText(200)),
      after: filter(instantParameter),
      /** The service's page token, base64url. */
      page: filter(z.string().max(2000).regex(/^[A-Za-z0-9_-]+$/, "must be a previous page's token")),
    }),
  }),
  'GET /workflows/:workflowId': route({
    params: z.object({ workflowId: parameterText(1000).min(1) }),
    query: z.object({ ...notice, view: filter(z.enum(['steps', 'timeline', 'raw'])), page: pageNumber }),
  }),
  'GET /partner-requests': route({
    query: z.object({ ...notice, status: filter(z.enum(PARTNER_REQUEST_STATES)), type: filter(z.enum(['mint', 'redeem'])), cursor: filter(identifier) }),
  }),
  'GET /partner-requests/:id': route({ params: z.object({ id: anyId }), query: z.object(notice) }),
  'GET /find': route({ query: z.object({ id: filter(anyId) }) }),
  'GET /redemptions': route({ query: z.object({ ...notice, page: pageNumber }) }),
  'GET /attestations/:id': route({ params: z.object({ id: z.string().regex(/^\d{1,39}$/, 'must be a decimal attestation id') }), query: z.object(notice) }),
  'GET /chains': route({
    query: z.object({ ...notice, tx: filter(z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte transaction hash')), page: pageNumber }),
  }),
  'GET /controls': route({ query: z.object(notice) }),
  'GET /audit': route({ query: z.object({ ...notice, target: filter(parameterText(1000)), before: filter(z.string().regex(/^\d{1,18}$/, 'must be an audit entry id')) }) }),
  'POST /actions/:action': route({ params: z.object({ action: z.enum(['sign-out', ...CONSOLE_ACTION_NAMES]) }) }),
} satisfies Record<string, ConsoleRoute>;

export type ConsoleRouteKey = keyof typeof CONSOLE_ROUTES;

/** What a route's page is handed: its path parameters and query as its schemas parsed them. */
export interface ConsoleInput<K extends ConsoleRouteKey> {
  params: z.output<(typeof CONSOLE_ROUTES)[K]['params']>;
  query: z.output<(typeof CONSOLE_ROUTES)[K]['query']>;
}

/** The request's parameters as route `key` declares them; a failure is an INVALID_PARAMETER ApiError naming the parameter. */
export function consoleInput<K extends ConsoleRouteKey>(key: K, ctx: ConsoleContext): ConsoleInput<K> {
  const declared: ConsoleRoute = CONSOLE_ROUTES[key];
  return { params: parseParams(declared.params, ctx.params), query: parseQuery(declared.query, ctx.query) } as ConsoleInput<K>;
}
