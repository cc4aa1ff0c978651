/**
 * A token symbol as clients write it — at least three characters, ending in `on` — checked alike by the REST routes
 * and the live streams, and the one message a malformed one is refused with (INVALID_SYMBOL).
 */
import { z } from 'zod';

export const INVALID_SYMBOL_MESSAGE = 'Symbol must be at least 3 characters long and end with "on"';

export const symbolSchema = z.string().min(3, INVALID_SYMBOL_MESSAGE).endsWith('on', INVALID_SYMBOL_MESSAGE);
