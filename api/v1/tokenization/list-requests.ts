/**
 * GET /v1/tokenization/requests (admin) — every partner mint and redemption, newest first: filter by `status`
 * (`pending`, `completed`, `rejected`, or a workflow state such as `needs_review`), `type` (`mint`, `redeem`),
 * `clientId` and `chainId`; `limit` per page (1–200, default 50) and `cursor` from the previous page's `nextCursor`.
 */
import { z } from 'zod';
import { EVM_CHAINS } from '../../../chains/networks';
import { listPartnerRequests } from '../../../db/queries/partner-requests';
import { parameterText } from '../../framework/parameters';
import { requestView } from './fields';
import { defineOperation } from '../../contract/operation';
import { partnerRequestPageSchema, PARTNER_REQUEST_STATES, type PartnerRequestPage } from './schemas';

const listQuery = z.strictObject({
  status: z
    .enum(PARTNER_REQUEST_STATES)
    .optional()
    .describe('`pending` (every state short of `completed`, `rejected` or `cancelled`), `completed`, `rejected`, or one workflow state such as `awaiting_finality`.'),
  type: z.enum(['mint', 'redeem']).optional(),
  clientId: parameterText(100).min(1).optional(),
  chainId: z.enum(EVM_CHAINS).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Requests per page.'),
  cursor: parameterText(200)
    .min(1)
    .transform((cursor) => Buffer.from(cursor, 'base64url').toString('latin1'))
    .pipe(z.string().regex(/^[\x21-\x7e]{1,128}$/, "must be a previous page's nextCursor"))
    .optional()
    .describe("The previous page's `nextCursor`."),
});

export const listRequestsOperation = defineOperation({
  method: 'get',
  path: '/v1/tokenization/requests',
  operationId: 'listPartnerRequests',
  summary: 'Every partner mint and redemption',
  description: 'Newest first, filtered by `status`, `type`, `clientId` and `chainId`; a page of `limit` requests and the `nextCursor` of the next.',
  access: 'admin',
  query: listQuery,
  fieldCodes: { chainId: 'INVALID_GM_CHAIN' },
  answers: { 200: { description: 'One page of requests.', schema: partnerRequestPageSchema } },
  errors: [],
  handler: (services) => async (ctx, { query }) => {
    const rows = await listPartnerRequests(services.db, {
      kind: query.type,
      status: query.status,
      clientId: query.clientId,
      chain: query.chainId,
      after: query.cursor,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    ctx.body = {
      requests: page.map((request) => requestView(request)),
      nextCursor: rows.length > query.limit ? Buffer.from(page.at(-1)!.issuerRequestId).toString('base64url') : null,
    } satisfies PartnerRequestPage;
  },
});
