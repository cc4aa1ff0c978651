/** GET /v1/tokenization/requests/{issuerRequestId} (admin) — one partner request with where its workflow stands. */
import { findPartnerRequest } from '../../../db/queries/partner-requests';
import { ApiError } from '../../../domain/errors';
import { requestParams, requestView } from './fields';
import { queryPartnerWorkflow } from './workflow-state';
import { defineOperation } from '../../contract/operation';
import { partnerRequestSchema } from './schemas';

export const getRequestOperation = defineOperation({
  method: 'get',
  path: '/v1/tokenization/requests/{issuerRequestId}',
  operationId: 'getPartnerRequest',
  summary: 'One partner request',
  access: 'admin',
  params: requestParams,
  answers: { 200: { description: 'The request as stored, with where its workflow stands (`workflow`).', schema: partnerRequestSchema } },
  errors: ['REQUEST_NOT_FOUND'],
  handler: (services) => async (ctx, { params: { issuerRequestId } }) => {
    const request = await findPartnerRequest(services.db, issuerRequestId);
    if (!request) throw new ApiError('REQUEST_NOT_FOUND', `No partner request ${issuerRequestId}`);
    ctx.body = requestView(request, await queryPartnerWorkflow(services.temporal, request));
  },
});
