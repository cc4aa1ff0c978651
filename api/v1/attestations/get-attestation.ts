/** GET /v1/attestations/{attestationId} — one of the calling account's attestations and its state. */
import type { Middleware } from 'koa';
import { findAccountAttestation } from '../../../db/queries/attestations';
import { ApiError } from '../../framework/errors';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { attestationIdParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';

export function getAttestationRoute(services: ApiServices): Middleware<ApiState> {
  return async (ctx) => {
    const { attestationId } = parseParams(attestationIdParams, ctx.params);
    const accountId = ctx.state.apiKey?.accountId;
    const stored = accountId ? await findAccountAttestation(services.db, accountId, attestationId) : undefined;
    if (!stored) throw new ApiError('ATTESTATION_NOT_FOUND', `No attestation ${attestationId} for this account`);
    // Outstanding is decided by state and time: past its expiry an attestation no longer counts even before its workflow records it.
    const expired = stored.state === 'outstanding' && stored.expiresAt <= services.clock();
    ctx.body = {
      ...stored.response,
      state: expired ? 'expired' : stored.state,
      executionTxHash: stored.executionTxHash,
      stateChangedAt: stored.stateChangedAt,
    };
  };
}
