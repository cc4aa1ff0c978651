/** GET /v1/workflows (admin) — workflows filtered by type, status, id prefix and start time, newest first. */
import { z } from 'zod';
import { listWorkflows } from '../../../inspection/workflows';
import { defineOperation } from '../../contract/operation';
import { instantParameter, parameterText } from '../../framework/parameters';
import { workflowListSchema, type WorkflowList } from './schemas';
import { requireTemporal, withTemporal } from './temporal-client';

const listQuery = z.object({
  type: parameterText(200).min(1).optional().describe('Only this workflow type, e.g. `attestationWorkflow`.'),
  status: z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT']).optional().describe('Only this execution status.'),
  idPrefix: parameterText(200).min(1).optional().describe('Only workflow ids starting with this, e.g. `attestation-`.'),
  startedAfter: instantParameter.optional().describe('Only workflows started at or after this: epoch ms or ISO-8601.'),
  startedBefore: instantParameter.optional().describe('Only workflows started before this: epoch ms or ISO-8601.'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many; default 100.'),
});

export const listWorkflowsOperation = defineOperation({
  method: 'get',
  path: '/v1/workflows',
  operationId: 'listWorkflows',
  summary: 'List workflows',
  description: "Workflow executions from Temporal's visibility store, filtered by type, status, id prefix and start time, newest first.",
  access: 'admin',
  query: listQuery,
  answers: { 200: { description: 'The matching workflows.', schema: workflowListSchema } },
  errors: ['TEMPORAL_UNAVAILABLE', 'WORKFLOW_NOT_FOUND'],
  handler: (services) => async (ctx, { query }) => {
    const client = requireTemporal(services);
    const workflows = await withTemporal(undefined, () =>
      listWorkflows(client, {
        type: query.type,
        status: query.status,
        idPrefix: query.idPrefix,
        startedAfter: query.startedAfter === undefined ? undefined : new Date(query.startedAfter),
        startedBefore: query.startedBefore === undefined ? undefined : new Date(query.startedBefore),
        pageSize: query.limit,
      }),
    );
    ctx.body = { workflows } satisfies WorkflowList;
  },
});
