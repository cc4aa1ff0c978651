/**
 * A token symbol as clients write it — at least three characters, ending in `on`; at most `MAX_SYMBOL_LENGTH`, without
 * control characters — checked alike by the REST routes and the live streams, and the message a malformed one is
 * refused with (INVALID_SYMBOL).
 */
import { z } from 'zod';
import { NO_CONTROL_CHARACTERS } from './input-text';

/** Longer than any listed token's symbol, short enough that no symbol parameter carries a document. */
export const MAX_SYMBOL_LENGTH = 32;

export const INVALID_SYMBOL_MESSAGE = 'Symbol must be at least 3 characters long and end with "on"';

export const symbolSchema = z
  .string()
  .min(3, INVALID_SYMBOL_MESSAGE)
  .endsWith('on', INVALID_SYMBOL_MESSAGE)
  .max(MAX_SYMBOL_LENGTH, `Symbol must be at most ${MAX_SYMBOL_LENGTH} characters`)
  .regex(NO_CONTROL_CHARACTERS, 'Symbol must not contain control characters');
