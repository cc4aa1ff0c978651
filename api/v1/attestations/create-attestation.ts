/**
 * POST /v1/attestations (write) — a signed attestation for the calling account's user, counted
 * against its limits and stored with the request for its lifecycle workflow. `Idempotency-Key` makes retries safe.
 */
import { issueAttestation } from '../../../attestations/issue-attestation';
import { attestationRequest, REQUEST_FIELD_CODES } from '../../../attestations/request-schema';
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
    "A signed authorization for the calling account's user to mint (`buy`) or redeem (`sell`) the token on-chain before it expires; `duration` decides how long (`short`, the default, has the tighter spread). Send exactly one of `tokenAmount` and `notionalValue`; `chainId` defaults to `ethereum-1`, and `solana-900` needs `userAddress`. Refused while the chain, the market or the asset is paused or closed, when the account trades only through allow-listed wallets and a wallet that could use the attestation is not listed (`INVALID_ADDRESS`), and when the account's outstanding count, active notional or session notional for the asset (or the issuer's off-hours exposure) would go over its limit. It counts against those limits until expired or, once its execution is seen on-chain (`executing`), until that execution is final (`executed`); `GET /v1/attestations` finds it again if the answer was lost.",
  access: 'write',
  headers: {
    'Idempotency-Key':
      'Optional, 1–255 printable ASCII characters (an empty or blank value is refused): a retry with the same key and body answers the first attestation (with `Idempotent-Replayed: true`); the same key with another body is refused.',
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
    // A header sent empty or blank (Node trims it to '') is a malformed key, not the absence of one.
    const idempotencyKey = ctx.headers['idempotency-key'];
    if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(idempotencyKey))) {
      throw new ApiError('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 printable ASCII characters; leave the header out to send no key');
    }
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
