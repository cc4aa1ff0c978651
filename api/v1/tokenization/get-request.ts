/** GET /v1/tokenization/requests/{issuerRequestId} (admin) — one partner request with where its workflow stands. */
import type { Middleware } from 'koa';
import { findPartnerRequest } from '../../../db/queries/partner';
import { ApiError } from '../../framework/errors';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requestParams, requestView } from './fields';
import { queryPartnerWorkflow } from './workflow-state';

export function getRequestRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { issuerRequestId } = parseParams(requestParams, ctx.params);
    const request = await findPartnerRequest(services.db, issuerRequestId);
    if (!request) throw new ApiError('REQUEST_NOT_FOUND', `No partner request ${issuerRequestId}`);
    ctx.body = requestView(request, await queryPartnerWorkflow(services.temporal, request));
  };
}
