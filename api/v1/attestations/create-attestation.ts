/**
 * POST /v1/attestations (write) — a signed attestation for the calling account's user, counted
 * against its limits, with its lifecycle workflow started. `Idempotency-Key` makes retries safe.
 */
import { issueAttestation } from '../../../attestations/issue-attestation';
import { attestationRequest, REQUEST_FIELD_CODES } from '../../../attestations/request-schema';
import { startAttestationWorkflow } from '../../../attestations/lifecycle-workflows';
import { defineOperation } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { callerOf, LIMIT_REFUSALS, PRICING_REFUSALS, refusalsAsApiErrors, requireAttestations, requireOneAmount } from './context';
import { attestationSchema, type Attestation } from './schemas';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export const createAttestationOperation = defineOperation({
  method: 'post',
  path: '/v1/attestations',
  operationId: 'createAttestation',
  summary: 'Create a signed attestation',
  description:
    "A signed authorization for the calling account's user to mint (`buy`) or redeem (`sell`) the token on-chain before it expires; `duration` decides how long (`short`, the default, has the tighter spread). Send exactly one of `tokenAmount` and `notionalValue`; `chainId` defaults to `ethereum-1`, and `solana-900` needs `userAddress`. Refused while the market or asset is paused or closed, and when the account's outstanding count, active notional or session notional for the asset (or the issuer's off-hours exposure) would go over its limit. It counts against those limits until expired or, once its execution is seen on-chain (`executing`), until that execution is final (`executed`); `GET /v1/attestations` finds it again if the answer was lost.",
  access: 'write',
  headers: {
    'Idempotency-Key':
      'Optional, 1–255 printable ASCII characters: a retry with the same key and body answers the first attestation (with `Idempotent-Replayed: true`); the same key with another body is refused.',
  },
  body: attestationRequest,
  fieldCodes: REQUEST_FIELD_CODES,
  answers: {
    200: {
      description: 'The signed attestation.',
      schema: attestationSchema,
      headers: { 'Idempotent-Replayed': '`true` when the answer is the attestation an earlier request with the same `Idempotency-Key` created.' },
    },
  },
  errors: [
    'ATTESTATIONS_UNAVAILABLE',
    'INVALID_IDEMPOTENCY_KEY',
    'INVALID_AMOUNT',
    'MISSING_USER_ADDRESS',
    'ASSET_NOT_FOUND',
    'IDEMPOTENCY_KEY_REUSED',
    ...PRICING_REFUSALS,
    ...LIMIT_REFUSALS,
    'RESERVES_SHORT',
  ],
  handler: (services) => async (ctx, { body: request }) => {
    const attestations = requireAttestations(services);
    const idempotencyKey = ctx.get('idempotency-key') || undefined;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ApiError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
    }
    requireOneAmount(request);
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
    ctx.body = created.attestation satisfies Attestation;
  },
});
