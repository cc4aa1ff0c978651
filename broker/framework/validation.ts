/**
 * Edge validation for the sandbox: path parameters, query strings and bodies are parsed with zod before a handler
 * sees them. A failure names the offending field and carries the code the route chose for that field. Before any
 * schema, text PostgreSQL cannot store (a NUL character, a lone surrogate) anywhere in the input is refused the same way.
 */
import type { z } from 'zod';
import { issueMessage, unstorableText } from '../../domain/input-text';
import { BrokerError, type BrokerErrorCode } from '../errors';

export type FieldCodes = Partial<Record<string, BrokerErrorCode>>;

function describeIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${field}: ${issueMessage(issue)}`;
}

function parse<T extends z.ZodType>(schema: T, input: unknown, fallback: BrokerErrorCode, what: string, codes: FieldCodes): z.infer<T> {
  const unstorable = unstorableText(input);
  if (unstorable) {
    const field = unstorable.path.length > 0 ? unstorable.path.join('.') : 'body';
    throw new BrokerError(codes[String(unstorable.path[0] ?? '')] ?? fallback, `Invalid ${what}: ${field}: ${unstorable.problem}`);
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw new BrokerError(fallback, `Invalid ${what}: unknown field ${issue.keys.join(', ')}`);
  const field = String(issue.path[0] ?? '');
  throw new BrokerError(codes[field] ?? fallback, `Invalid ${what}: ${describeIssue(issue)}`);
}

/** Parses a JSON body; fields without an entry in `codes`, unknown fields and a non-object fail with INVALID_REQUEST_BODY. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown, codes: FieldCodes = {}): z.infer<T> {
  return parse(schema, body ?? {}, 'INVALID_REQUEST_BODY', 'request body', codes);
}

export function parseParams<T extends z.ZodType>(schema: T, params: unknown, codes: FieldCodes = {}): z.infer<T> {
  return parse(schema, params, 'INVALID_PARAMETER', 'path parameter', codes);
}

export function parseQuery<T extends z.ZodType>(schema: T, query: unknown, codes: FieldCodes = {}): z.infer<T> {
  return parse(schema, query, 'INVALID_PARAMETER', 'query parameter', codes);
}
