/** What the attestation routes share: their services, the calling account, and how refusals become API errors. */
import type { Context } from 'koa';
import { AttestationRefused } from '../../../attestations/errors';
import { amountProblem, REQUEST_FIELD_CODES, type SoftQuoteRequest } from '../../../attestations/request-schema';
import type { z } from 'zod';
import { ApiError } from '../../framework/errors';
import { parseBody } from '../../framework/validation';
import { readJsonBody } from '../../framework/body';
import type { ApiState } from '../../framework/state';
import type { ApiServices, AttestationServices } from '../../services';

export function requireAttestations(services: ApiServices): AttestationServices {
  if (!services.attestations) throw new ApiError('ATTESTATIONS_UNAVAILABLE', 'This API process does not sign attestations');
  return services.attestations;
}

/** The account the key acts for (write and admin keys always have one). */
export function callerOf(ctx: Context & { state: ApiState }): { accountId: string; userId: `0x${string}` } {
  const key = ctx.state.apiKey!;
  if (!key.accountId || !key.userId) throw new ApiError('READ_ONLY_API_KEY', 'This API key has no account and cannot trade');
  return { accountId: key.accountId, userId: key.userId };
}

/** Parses and checks a quote body: field codes, then exactly one amount. */
export async function readQuoteBody<T extends z.ZodType<SoftQuoteRequest>>(ctx: Context, services: ApiServices, schema: T): Promise<z.infer<T>> {
  const request = parseBody(schema, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES), REQUEST_FIELD_CODES);
  const problem = amountProblem(request);
  if (problem) throw new ApiError('INVALID_AMOUNT', `Invalid request body: ${problem}`);
  return request;
}

/** Runs attestation logic, turning its refusals into API errors. */
export async function refusalsAsApiErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AttestationRefused) throw new ApiError(error.code, error.message, { cause: error });
    throw error;
  }
}
