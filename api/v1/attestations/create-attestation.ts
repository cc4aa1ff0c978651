/**
 * POST /v1/attestations (write) — a signed attestation for the calling account's user, counted
 * against its limits, with its lifecycle workflow started. `Idempotency-Key` makes retries safe.
 */
import type { Middleware } from 'koa';
import { issueAttestation } from '../../../attestations/issue-attestation';
import { attestationRequest } from '../../../attestations/request-schema';
import { startAttestationWorkflow } from '../../../attestations/lifecycle-workflows';
import { ApiError } from '../../framework/errors';
import type { ApiState } from '../../framework/state';
import type { ApiServices } from '../../services';
import { callerOf, readQuoteBody, refusalsAsApiErrors, requireAttestations } from './context';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function createAttestationRoute(services: ApiServices): Middleware<ApiState> {
  return async (ctx) => {
    const attestations = requireAttestations(services);
    const idempotencyKey = ctx.get('idempotency-key') || undefined;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ApiError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
    }
    const request = await readQuoteBody(ctx, services, attestationRequest);
    const asset = await services.assets.resolve(request.symbol);
    const created = await refusalsAsApiErrors(() =>
      issueAttestation(
        { db: services.db, signers: attestations.signers, settings: attestations.settings },
        { caller: callerOf(ctx), asset, request, idempotencyKey, now: services.clock() },
      ),
    );
    if (created.replayed) ctx.set('Idempotent-Replayed', 'true');
    else if (services.temporal) {
      // Stored first: should this start fail, the worker's recovery starts the workflow on its next start.
      await startAttestationWorkflow(services.temporal, {
        attestationId: created.attestation.attestationId,
        expiresAt: created.expiresAt,
        taskQueue: attestations.taskQueue,
        settlementGraceMs: attestations.settlementGraceMs,
      }).catch((error: unknown) =>
        services.logger.error({ err: error, attestationId: created.attestation.attestationId }, 'starting the attestation workflow failed'),
      );
    }
    ctx.body = created.attestation;
  };
}
