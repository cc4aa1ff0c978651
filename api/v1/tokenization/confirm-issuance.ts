/**
 * POST /v1/tokenization/inkind/issuance/confirm (partner) — the broker journalled the shares to the issuer's account
 * (`completed`) or could not (`rejected`): stored, then signalled to the mint's workflow, which mints only after a
 * `completed` one. A repeat answers the same; a contradicting confirm is 409.
 */
import { confirmIssuance } from '../../../partner/issuance';
import { refusalsAsErrors, requireWorkflows } from './context';
import { confirmBody } from './fields';
import { defineOperation } from '../../contract/operation';
import { issuanceConfirmationSchema, type IssuanceConfirmation } from './schemas';

export const confirmIssuanceOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/inkind/issuance/confirm',
  operationId: 'confirmIssuance',
  summary: 'Confirm (or reject) the journal of the shares',
  description:
    "The broker journalled the issuance's shares to the issuer's account (`completed`) or could not (`rejected`, with an optional `reason`). The confirm is stored, then signalled to the mint's workflow, which mints only after a `completed` one. Only a request still waiting for its confirm takes one; repeating the same confirm answers the same, a contradicting one, or one for a request that no longer waits (it timed out), is 409 `REQUEST_CONFLICT`.",
  access: 'partner',
  body: confirmBody,
  answers: { 200: { description: 'The confirm stored for the request.', schema: issuanceConfirmationSchema } },
  errors: ['REQUEST_NOT_FOUND', 'REQUEST_CONFLICT', 'TEMPORAL_UNAVAILABLE'],
  handler: (services) => async (ctx, { body }) => {
    const workflows = requireWorkflows(services);
    const request = await refusalsAsErrors(() =>
      confirmIssuance(
        { db: services.db, workflows },
        { tokenizationRequestId: body.tokenization_request_id, issuerRequestId: body.issuer_request_id, status: body.status, reason: body.reason },
      ),
    );
    // Found by its tokenization id, and answered only once its confirm is stored.
    ctx.body = {
      tokenization_request_id: request.tokenizationRequestId!,
      issuer_request_id: request.issuerRequestId,
      status: request.confirmStatus!,
    } satisfies IssuanceConfirmation;
  },
});
