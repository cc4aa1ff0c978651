/** GET /v1/workflows/{workflowId}/history (admin) — the history as a timeline: event id, time, type, decoded payloads. */
import { workflowTimeline } from '../../../inspection/workflows';
import { defineOperation } from '../../contract/operation';
import { workflowIdParams } from '../../framework/path-params';
import { workflowHistorySchema, type WorkflowHistory } from './schemas';
import { requireTemporal, withTemporal } from './temporal-client';

export const workflowHistoryOperation = defineOperation({
  method: 'get',
  path: '/v1/workflows/{workflowId}/history',
  operationId: 'getWorkflowHistory',
  summary: "A workflow's history",
  description: "The current run's history as a timeline: each event's id, time, type and attributes, with payloads decoded to JSON.",
  access: 'admin',
  params: workflowIdParams,
  answers: { 200: { description: 'The timeline, oldest event first.', schema: workflowHistorySchema } },
  errors: ['WORKFLOW_NOT_FOUND', 'TEMPORAL_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { workflowId } }) => {
    const client = requireTemporal(services);
    ctx.body = { workflowId, events: await withTemporal(workflowId, () => workflowTimeline(client, workflowId)) } satisfies WorkflowHistory;
  },
});
