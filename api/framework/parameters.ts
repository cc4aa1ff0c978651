/**
 * What every path and query parameter is built from, so that each is bounded where it is declared: text of a stated
 * length without control characters (no id, name, filter or cursor has one), and a time as epoch ms or ISO-8601
 * within what a JS Date, PostgreSQL's bigint and timestamptz and the workflow service's visibility queries all take.
 * The API's operations declare their parameters with these, and so do the console's pages.
 */
import { z } from 'zod';
import { CONTROL_CHARACTER_MESSAGE, NO_CONTROL_CHARACTERS } from '../../domain/input-text';

/** Text of at most `maxLength` characters without control characters; add `.min(1)` where it must not be empty. */
export function parameterText(maxLength: number): z.ZodString {
  return z.string().max(maxLength).regex(NO_CONTROL_CHARACTERS, CONTROL_CHARACTER_MESSAGE);
}

/** The last instant a time parameter may name: 9999-12-31T23:59:59.999Z, the last an ISO-8601 time of four-digit year writes. */
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const INSTANT_MESSAGE = `must be epoch ms (0 to ${MAX_INSTANT_MS}) or an ISO-8601 time`;

/** A time as epoch ms (digits) or ISO-8601 with an offset, parsed to epoch ms between 0 and `MAX_INSTANT_MS`. */
export const instantParameter = z
  .union([z.string().regex(/^\d{1,15}$/).transform(Number), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))], { error: INSTANT_MESSAGE })
  .pipe(z.number().int().min(0, INSTANT_MESSAGE).max(MAX_INSTANT_MS, INSTANT_MESSAGE));
