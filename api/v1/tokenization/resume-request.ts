/**
 * POST /v1/tokenization/requests/{issuerRequestId}/resume (admin) `{clientId?}` — after an operator fixed what held
 * a request for review: a redemption from a wallet no client was linked to is assigned `clientId` (a client linked
 * to a partner account), and the workflow is told to look again (a refused mint is tried again, a refused callback
 * is sent again, a redemption over every limit is measured again). 200 with the request; 409 when the request is
 * finished, or when `clientId` is given for a request not awaiting one (also when another operator assigned one first).
 */
import { findPartnerClient } from '../../../db/queries/partner-clients';
import { findPartnerRequest, updatePartnerRequest } from '../../../db/queries/partner-requests';
import { partnerStatus } from '../../../domain/partner';
import { partnerResumeSignal } from '../../../temporal/messages';
import { ApiError } from '../../../domain/errors';
import { requireWorkflows } from './context';
import { requestParams, requestView, resumeBody } from './fields';
import { partnerWorkflowId, queryPartnerWorkflow } from './workflow-state';
import { defineOperation } from '../../contract/operation';
import { partnerRequestSchema } from './schemas';

export const resumeRequestOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/requests/{issuerRequestId}/resume',
  operationId: 'resumePartnerRequest',
  summary: 'Resume a request held for review',
  description:
    "After an operator fixed what held the request: with `clientId`, a redemption from a wallet no client was linked to (`needs_review` without a client) is assigned that client, which must be linked to a partner account; then the request's workflow is told to look again (a mint the contract refused is tried again, a callback the broker kept refusing is sent again, a redemption over every limit is measured again). The body may be left out.",
  access: 'admin',
  params: requestParams,
  body: resumeBody,
  answers: { 200: { description: 'The request, with where its workflow stands.', schema: partnerRequestSchema } },
  errors: ['REQUEST_NOT_FOUND', 'REQUEST_CONFLICT', 'ACCOUNT_NOT_LINKED', 'TEMPORAL_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { issuerRequestId }, body }) => {
    const workflows = requireWorkflows(services);
    let request = await findPartnerRequest(services.db, issuerRequestId);
    if (!request) throw new ApiError('REQUEST_NOT_FOUND', `No partner request ${issuerRequestId}`);
    if (partnerStatus(request.state) !== 'pending') {
      throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} is ${request.state}; there is nothing to resume`);
    }
    if (request.state === 'awaiting_finality') {
      throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} is awaiting the finality of its burn's block; its workflow starts then`);
    }
    if (body.clientId !== undefined) {
      if (request.state !== 'needs_review' || request.clientId !== null) {
        throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} is ${request.state} and not waiting for a client`);
      }
      const client = await findPartnerClient(services.db, body.clientId);
      if (!client?.partnerAccount) throw new ApiError('ACCOUNT_NOT_LINKED', `Client ${body.clientId} is not linked to a partner account`);
      // Only while still without a client: another operator's assignment, made since the read above, stands.
      request = (await updatePartnerRequest(services.db, issuerRequestId, { clientId: client.clientId, state: 'pending', reason: null }, ['needs_review'], { unassigned: true }))!;
      if (request.clientId !== client.clientId) {
        throw new ApiError('REQUEST_CONFLICT', `Request ${issuerRequestId} changed meanwhile: it is ${request.state}, with client ${request.clientId ?? 'none'}`);
      }
    }
    await workflows.client.workflow.getHandle(partnerWorkflowId(request)).signal(partnerResumeSignal);
    ctx.body = requestView(request, await queryPartnerWorkflow(services.temporal, request));
  },
});
