/**
 * What the attestation routes share: their services, the calling account, the one-amount rule of a quote, the codes a
 * quote can be refused with and how refusals become API errors, and a stored attestation as clients read it.
 */
import type { Context } from 'koa';
import { AttestationRefused } from '../../../attestations/errors';
import type { LimitCode } from '../../../attestations/limits';
import type { RestrictionCode } from '../../../attestations/trading-status';
import type { StoredAttestation } from '../../../db/queries/attestations';
import type { ErrorCode } from '../../../domain/error-codes';
import { amountProblem, type SoftQuoteRequest } from '../../../attestations/request-schema';
import { ApiError } from '../../../domain/errors';
import type { ApiState } from '../../framework/state';
import type { ApiServices, AttestationServices } from '../../services';
import type { Attestation, AttestationRecord } from './schemas';

/** Why the asset cannot trade now (`loadTradingStatus`). */
export const TRADING_RESTRICTIONS = ['MARKET_PAUSED', 'ASSET_PAUSED', 'MARKET_CLOSED', 'ASSET_CLOSED_FOR_SESSION'] as const satisfies readonly RestrictionCode[];

/** How pricing a request (`priceRequest`) refuses it: a paused chain, restrictions, a stale price, no contract, a notional below one base unit. */
export const PRICING_REFUSALS = ['PAUSED_GM_CHAIN', ...TRADING_RESTRICTIONS, 'ASSET_REDEEM_ONLY', 'PRICE_UNAVAILABLE', 'CHAIN_UNAVAILABLE', 'INVALID_NOTIONAL_VALUE'] as const satisfies readonly ErrorCode[];

/** The limits an attestation is checked against (`refusedBy`). */
export const LIMIT_REFUSALS = [
  'MAX_ATTESTATIONS',
  'MAX_LIMIT_REACHED',
  'SESSION_LIMIT_REACHED',
  'OFFHOURS_EXPOSURE_LIMIT_REACHED',
] as const satisfies readonly LimitCode[];

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

/** Refuses a quote request (already parsed) without exactly one amount: none is MISSING_TOKEN_OR_NOTIONAL, both INVALID_AMOUNT. */
export function requireOneAmount(request: SoftQuoteRequest): void {
  const problem = amountProblem(request);
  const none = request.tokenAmount === undefined && request.notionalValue === undefined;
  if (problem) throw new ApiError(none ? 'MISSING_TOKEN_OR_NOTIONAL' : 'INVALID_AMOUNT', `Invalid request body: ${problem}`);
}

/** Runs attestation logic, turning its refusals into API errors. */
export async function refusalsAsApiErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AttestationRefused) throw new ApiError(error.code, error.message, { cause: error, headers: error.headers });
    throw error;
  }
}

/** A stored attestation as clients read it, at `now`. */
export function attestationRecordView(stored: StoredAttestation, now: number): AttestationRecord {
  const executing = stored.state === 'executing' && stored.executionBlockNumber !== null;
  return {
    ...(stored.response as Attestation),
    // Outstanding is decided by state and time: past its expiry an attestation no longer counts even before its workflow records it.
    state: stored.state === 'outstanding' && stored.expiresAt <= now ? 'expired' : stored.state,
    executionTxHash: stored.executionTxHash,
    executionBlockNumber: stored.executionBlockNumber,
    confirmations: executing ? Math.max(1, (stored.seenHead ?? stored.executionBlockNumber!) - stored.executionBlockNumber! + 1) : null,
    stateChangedAt: stored.stateChangedAt,
  };
}
