/**
 * POST /v1/attestations (write) — a signed attestation for the calling account's user, counted
 * against its limits and stored with the request for its lifecycle workflow. `Idempotency-Key` makes retries safe.
 */
import { issueAttestation } from '../../../attestations/issue-attestation';
import { attestationRequest, REQUEST_FIELD_CODES } from '../../../attestations/request-schema';
import { defineOperation } from '../../contract/operation';
import { idempotencyKeyHeader, idempotencyKeyOf } from '../../framework/idempotency-key';
import { callerOf, LIMIT_REFUSALS, PRICING_REFUSALS, refusalsAsApiErrors, requireAttestations, requireOneAmount } from './context';
import { attestationSchema, type Attestation } from './schemas';

export const createAttestationOperation = defineOperation({
  method: 'post',
  path: '/v1/attestations',
  operationId: 'createAttestation',
  summary: 'Create a signed attestation',
  description:
    "A signed authorization for the calling account's user to mint (`buy`) or redeem (`sell`) the token on-chain before it expires; `duration` decides how long (`short`, the default, has the tighter spread). Send exactly one of `tokenAmount` and `notionalValue`; `chainId` defaults to `ethereum-1`, and `solana-900` needs `userAddress`. Refused while the chain, the market or the asset is paused or closed, when the account trades only through allow-listed wallets and a wallet that could use the attestation is not listed (`INVALID_ADDRESS`), and when the account's outstanding count, active notional or session notional for the asset (or the issuer's off-hours exposure) would go over its limit. It counts against those limits until expired or, once its execution is seen on-chain (`executing`), until that execution is final (`executed`); `GET /v1/attestations` finds it again if the answer was lost.",
  access: 'write',
  headers: idempotencyKeyHeader('the first attestation'),
  retry: 'idempotency-key',
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
    'INVALID_AMOUNT', 'MISSING_TOKEN_OR_NOTIONAL',
    'MISSING_USER_ADDRESS',
    'INVALID_ADDRESS',
    'ASSET_NOT_FOUND',
    'IDEMPOTENCY_KEY_REUSED',
    ...PRICING_REFUSALS,
    ...LIMIT_REFUSALS,
    'RESERVES_SHORT',
    // A Solana attestation holds a durable nonce of the pool (attestations/solana-nonce-pool.ts).
    'NONCE_POOL_EXHAUSTED',
  ],
  handler: (services) => async (ctx, { body: request }) => {
    const attestations = requireAttestations(services);
    const idempotencyKey = idempotencyKeyOf(ctx);
    requireOneAmount(request);
    const asset = await services.assets.resolve(request.symbol);
    const created = await refusalsAsApiErrors(() =>
      issueAttestation(
        { db: services.db, ...attestations },
        { caller: callerOf(ctx), asset, request, idempotencyKey, now: services.clock() },
      ),
    );
    // Its lifecycle workflow is started by a worker, from the outbox row stored with it.
    if (created.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = created.attestation satisfies Attestation;
  },
});
