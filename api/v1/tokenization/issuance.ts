/**
 * POST /v1/tokenization/inkind/issuance (partner) — the broker asks the issuer to mint for a participant's shares:
 * 201 `{issuer_request_id, status: "created"}`, the mint's workflow started. The `tokenization_request_id` makes it
 * idempotent: a resubmission answers the first result (200, `Idempotent-Replayed: true`), the same id with other
 * fields is 409. Refusals: see partner/issuance.ts.
 */
import type { Middleware } from 'koa';
import { acceptIssuance } from '../../../partner/issuance';
import { readJsonBody } from '../../framework/body';
import { parseBody } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { refusalsAsErrors, requireWorkflows } from './context';
import { issuanceBody, ISSUANCE_FIELD_CODES } from './fields';

export function issuanceRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const body = parseBody(issuanceBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES), ISSUANCE_FIELD_CODES);
    const workflows = requireWorkflows(services);
    const outcome = await refusalsAsErrors(() =>
      acceptIssuance(
        { db: services.db, workflows, now: services.clock() },
        {
          tokenizationRequestId: body.tokenization_request_id,
          qty: body.qty,
          underlyingSymbol: body.underlying_symbol,
          tokenSymbol: body.token_symbol,
          network: body.network,
          clientId: body.client_id,
          wallet: body.wallet_address as `0x${string}`,
          mintRequest: { created: body.created, nonce: BigInt(body.nonce).toString(), brokerSignature: body.broker_signature as `0x${string}` },
        },
      ),
    );
    ctx.status = outcome.created ? 201 : 200;
    if (!outcome.created) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { issuer_request_id: outcome.request.issuerRequestId, status: 'created' };
  };
}
