/**
 * POST /v1/tokenization/inkind/issuance/confirm (partner) — the broker journalled the shares to the issuer's account
 * (`completed`) or could not (`rejected`): stored, then signalled to the mint's workflow, which mints only after a
 * `completed` one. A repeat answers the same; a contradicting confirm is 409.
 */
import type { Middleware } from 'koa';
import { confirmIssuance } from '../../../partner/issuance';
import { readJsonBody } from '../../framework/body';
import { parseBody } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { refusalsAsErrors, requireWorkflows } from './context';
import { confirmBody } from './fields';

export function confirmIssuanceRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const body = parseBody(confirmBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    const workflows = requireWorkflows(services);
    const request = await refusalsAsErrors(() =>
      confirmIssuance(
        { db: services.db, workflows },
        { tokenizationRequestId: body.tokenization_request_id, issuerRequestId: body.issuer_request_id, status: body.status, reason: body.reason },
      ),
    );
    ctx.body = { tokenization_request_id: request.tokenizationRequestId, issuer_request_id: request.issuerRequestId, status: request.confirmStatus };
  };
}
