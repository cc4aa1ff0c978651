/**
 * POST /v1/tokenization/requests/{issuerRequestId}/reject (admin) `{reason}` — an operator gives up on a mint the
 * issuer contract refused (`needs_review`, nothing minted): it ends `rejected` with the reason, its session limit is
 * released, and its workflow is told so (it finishes). 200 with the request; 409 for any other request — one that
 * minted, or is not waiting for review, or a redemption (burnt tokens are owed their shares).
 */
import { z } from 'zod';
import { findPartnerRequest, updatePartnerRequest } from '../../../db/queries/partner-requests';
import { partnerResumeSignal } from '../../../temporal/messages';
import { defineOperation } from '../../contract/operation';
import { ApiError } from '../../../domain/errors';
import { requireWorkflows } from './context';
import { requestParams, requestView } from './fields';
import { partnerRequestSchema } from './schemas';
import { partnerWorkflowId, queryPartnerWorkflow } from './workflow-state';

const rejectBody = z.strictObject({ reason: z.string({ error: 'must be a string' }).min(1).max(500).describe('Why the mint is given up; stored as its reason.') });

export const rejectRequestOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/requests/{issuerRequestId}/reject',
  operationId: 'rejectPartnerRequest',
  summary: 'Give up on a mint held for review',
  description:
    "For a mint the issuer contract refused (`needs_review`, nothing minted): it ends `rejected` with `reason`, which releases its share of the session's mint limit, and its workflow finishes. The shares the broker journalled to the issuer's account are settled with the broker outside this API. Any other request is 409 `REQUEST_CONFLICT`.",
  access: 'admin',
  params: requestParams,
  body: rejectBody,
  answers: { 200: { description: 'The request, rejected.', schema: partnerRequestSchema } },
  errors: ['REQUEST_NOT_FOUND', 'REQUEST_CONFLICT', 'TEMPORAL_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { issuerRequestId }, body: { reason } }) => {
    const workflows = requireWorkflows(services);
    const found = await findPartnerRequest(services.db, issuerRequestId);
    if (!found) throw new ApiError('REQUEST_NOT_FOUND', `No partner request ${issuerRequestId}`);
    if (found.kind !== 'mint' || found.state !== 'needs_review' || found.txHash !== null) {
      throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} is a ${found.kind} ${found.state}${found.txHash ? ' with tokens minted' : ''}; only a mint refused before minting can be rejected`);
    }
    const request = (await updatePartnerRequest(services.db, issuerRequestId, { state: 'rejected', reason: `rejected by an operator: ${reason}` }, ['needs_review']))!;
    if (request.state !== 'rejected') throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} moved on to ${request.state} meanwhile`);
    await workflows.client.workflow.getHandle(partnerWorkflowId(request)).signal(partnerResumeSignal);
    ctx.body = requestView(request, await queryPartnerWorkflow(services.temporal, request));
  },
});
