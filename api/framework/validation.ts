/**
 * Edge validation: path parameters, query strings and bodies are parsed with zod before a handler sees them (the
 * mount, api/contract/mount.ts, calls these with each operation's schemas and field codes). A failure names the
 * offending field and carries the code the operation chose for it. Before any schema, text PostgreSQL cannot store
 * (a NUL character, a lone surrogate) anywhere in the input is refused the same way, so no route can pass it on to
 * fail as a server error.
 */
import type { z } from 'zod';
import { isChain } from '../../domain/chains';
import type { ErrorCode } from '../../domain/error-codes';
import { issueMessage, unstorableText } from '../../domain/input-text';
import { ApiError } from '../../domain/errors';

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${field}: ${issueMessage(issue)}`;
}

/** Refuses text that cannot be stored, with the code `codes` names for its field (else `fallback`). */
function refuseUnstorableText(input: unknown, codes: Partial<Record<string, ErrorCode>>, fallback: ErrorCode, what: string): void {
  const found = unstorableText(input);
  if (!found) return;
  const field = found.path.length > 0 ? found.path.join('.') : 'body';
  throw new ApiError(codes[String(found.path[0] ?? '')] ?? fallback, `${what} ${field}: ${found.problem}`);
}

/** The code a field's absence answers with, where the reference issuer names one beside the field's own code. */
const WHEN_MISSING: Partial<Record<ErrorCode, ErrorCode>> = { INVALID_SYMBOL: 'MISSING_SYMBOL', INVALID_SIDE: 'MISSING_SIDE', INVALID_GM_CHAIN: 'MISSING_CHAIN_ID' };

/**
 * A refused field as an error: its own code, unless the field was left out (MISSING_SYMBOL, MISSING_SIDE,
 * MISSING_CHAIN_ID, saying it is required) or names a chain we know that this operation does not take
 * (UNSUPPORTED_GM_CHAIN, e.g. `solana-900` for a wallet, which only EVM chains have).
 */
function fieldRefusal(code: ErrorCode, field: string, value: unknown, what: string, message: string): ApiError {
  const missing = WHEN_MISSING[code];
  if (value === undefined && missing) return new ApiError(missing, `${what} ${field} is required`);
  if (code === 'INVALID_GM_CHAIN' && typeof value === 'string' && isChain(value)) return new ApiError('UNSUPPORTED_GM_CHAIN', message);
  return new ApiError(code, message);
}

/** Every code a field declared with `code` can answer with (the operation's document lists them). */
export function codesOfField(code: ErrorCode): ErrorCode[] {
  const missing = WHEN_MISSING[code];
  return [code, ...(missing ? [missing] : []), ...(code === 'INVALID_GM_CHAIN' ? (['UNSUPPORTED_GM_CHAIN'] as const) : [])];
}

/** The value `input` holds under `field`, if it is an object. */
function valueOf(input: unknown, field: string): unknown {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[field] : undefined;
}

/** The code a custom issue names for itself (`params.errorCode`), if any. */
function ownCode(issue: z.core.$ZodIssue): ErrorCode | undefined {
  return issue.code === 'custom' ? (issue.params?.errorCode as ErrorCode | undefined) : undefined;
}

/**
 * Parses `ctx.query`. `codes` maps a parameter name to the error code for it;
 * parameters without an entry fail with INVALID_PARAMETER.
 */
export function parseQuery<T extends z.ZodType>(
  schema: T,
  query: unknown,
  codes: Partial<Record<string, ErrorCode>> = {},
): z.infer<T> {
  refuseUnstorableText(query, codes, 'INVALID_PARAMETER', 'Invalid query parameter');
  const parsed = schema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  const code = codes[field];
  const message = `Invalid query parameter ${describeIssue(issue)}`;
  throw code ? fieldRefusal(code, field, valueOf(query, field), 'Query parameter', message) : new ApiError('INVALID_PARAMETER', message);
}

/**
 * Parses `ctx.params`. `codes` maps a parameter name to the error code for it;
 * parameters without an entry fail with INVALID_PARAMETER.
 */
export function parseParams<T extends z.ZodType>(
  schema: T,
  params: unknown,
  codes: Partial<Record<string, ErrorCode>> = {},
): z.infer<T> {
  refuseUnstorableText(params, codes, 'INVALID_PARAMETER', 'Invalid path parameter');
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  const code = codes[field];
  throw code ? fieldRefusal(code, field, valueOf(params, field), 'Path parameter', issueMessage(issue)) : new ApiError('INVALID_PARAMETER', `Invalid path parameter ${describeIssue(issue)}`);
}

/**
 * Parses a JSON body. `codes` maps a field to the error code it fails with; other fields, unknown
 * fields and a body that is not an object fail with INVALID_REQUEST_BODY. The message names the field.
 * A missing, empty or `null` body is INVALID_REQUEST_BODY too, unless the schema takes `{}`.
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, codes: Partial<Record<string, ErrorCode>> = {}): z.infer<T> {
  refuseUnstorableText(body, codes, 'INVALID_REQUEST_BODY', 'Invalid request body:');
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  if (body === undefined || body === null) {
    throw new ApiError('INVALID_REQUEST_BODY', 'Invalid request body: a JSON object is required');
  }
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    throw new ApiError('INVALID_REQUEST_BODY', `Invalid request body: unknown field ${issue.keys.join(', ')}`);
  }
  const field = String(issue.path[0] ?? '');
  const code = ownCode(issue) ?? codes[field];
  const message = `Invalid request body: ${describeIssue(issue)}`;
  throw code ? fieldRefusal(code, field, valueOf(body, field), 'Invalid request body:', message) : new ApiError('INVALID_REQUEST_BODY', message);
}
