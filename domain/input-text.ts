/**
 * What the edge validation of both HTTP apps (the API's and the brokerage sandbox's) says about request text before
 * any schema sees it, and how it words a failed length check. Pure.
 *
 * PostgreSQL's text cannot hold the NUL character, and text with a lone UTF-16 surrogate is not Unicode (it reaches
 * the database mangled, as U+FFFD): a request carrying either in any string — a path or query parameter, a body
 * field or a body field's name — is refused as a bad request, never passed on to fail as a server error.
 */
import type { z } from 'zod';

export interface TextProblem {
  /** Where the text is: `reason`, `ticks.0.symbol`; a field name itself when the name is the problem. */
  path: (string | number)[];
  problem: string;
}

/** Text without a control character (C0, DEL or C1): what every path and query parameter must be. */
export const NO_CONTROL_CHARACTERS = /^\P{Cc}*$/u;
export const CONTROL_CHARACTER_MESSAGE = 'must not contain control characters';

const NUL = 'must not contain the NUL character (U+0000)';
const LONE_SURROGATE = 'must be valid Unicode text (it contains a lone surrogate)';
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE_PATTERN = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL;
  return LONE_SURROGATE_PATTERN.test(text) ? LONE_SURROGATE : undefined;
}

/** The first string of `input` (walked through arrays and objects, names included) that cannot be stored as text. */
export function unstorableText(input: unknown, path: (string | number)[] = []): TextProblem | undefined {
  if (typeof input === 'string') {
    const problem = problemOf(input);
    return problem ? { path, problem } : undefined;
  }
  if (Array.isArray(input)) {
    for (const [index, item] of input.entries()) {
      const found = unstorableText(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (input !== null && typeof input === 'object') {
    for (const [name, value] of Object.entries(input)) {
      const problem = problemOf(name);
      if (problem) return { path: [...path, JSON.stringify(name)], problem: `(a field name) ${problem}` };
      const found = unstorableText(value, [...path, name]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * An issue's message, naming the limit of a failed length or size check ("must be at most 500 characters") even
 * where the schema's own message covers only its type (a schema-level `error` such as "must be a string" is what zod
 * reports for every check of that schema that has no message of its own).
 */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'too_big' && issue.code !== 'too_small') return issue.message;
  const limit = issue.code === 'too_big' ? issue.maximum : issue.minimum;
  // zod's own wording ("Too big: expected string to have <=500 characters") is replaced too.
  if (issue.message.includes(String(limit)) && !/^Too (big|small)/.test(issue.message)) return issue.message;
  const exclusive = issue.inclusive === false;
  const bound = issue.code === 'too_big' ? (exclusive ? 'less than' : 'at most') : exclusive ? 'more than' : 'at least';
  switch (issue.origin) {
    case 'string':
      return issue.code === 'too_small' && Number(limit) === 1 && !exclusive ? 'must not be empty' : `must be ${bound} ${String(limit)} characters`;
    case 'array':
    case 'set':
      return `must have ${bound} ${String(limit)} items`;
    default:
      return `must be ${bound} ${String(limit)}`;
  }
}
