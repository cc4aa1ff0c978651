/**
 * How values are written in JSON — REST answers, stream events, gRPC messages alike: amounts and prices as decimal
 * strings (never a JSON number), times as Unix epoch milliseconds.
 */
import { z } from 'zod';

/** A decimal number written as a string (amounts, prices, multipliers). */
export const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/);

/** A Unix epoch time in milliseconds. */
export const epochMs = z.int().nonnegative();
