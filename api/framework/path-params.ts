/**
 * The path parameters operations share, as the zod schemas they declare: a token symbol (with the code it fails
 * with), an attestation id, a workflow id, an asset status event id.
 */
import { z } from 'zod';
import type { ErrorCode } from '../../domain/error-codes';
import { symbolSchema } from '../../domain/token-symbol';
import { parameterText } from './parameters';

export const symbolParams = z.object({ symbol: symbolSchema });
export const SYMBOL_PARAM_CODES: Partial<Record<string, ErrorCode>> = { symbol: 'INVALID_SYMBOL' };

/** A 128-bit attestation id as a decimal string. */
export const attestationIdParams = z.object({ attestationId: z.string().regex(/^\d{1,39}$/, 'must be a decimal integer') });

export const workflowIdParams = z.object({ workflowId: parameterText(1000).min(1) });

export const eventIdParams = z.object({ eventId: parameterText(200).min(1) });
