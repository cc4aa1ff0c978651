/** GET /v1/workflows/{workflowId} (admin) — status, pending activities (attempts, last failure) and timers. */
import { describeWorkflow } from '../../../inspection/workflows';
import { defineOperation } from '../../contract/operation';
import { workflowIdParams } from '../../framework/path-params';
import { workflowDescriptionSchema, type WorkflowDescription } from './schemas';
import { requireTemporal, withTemporal } from './temporal-client';

export const describeWorkflowOperation = defineOperation({
  method: 'get',
  path: '/v1/workflows/{workflowId}',
  operationId: 'describeWorkflow',
  summary: 'Describe a workflow',
  description: "The current (or latest) run's status and timing, with its pending work: activities (attempts, last failure, heartbeat), timers, the workflow task and child workflows.",
  access: 'admin',
  params: workflowIdParams,
  answers: { 200: { description: 'The workflow and its pending work.', schema: workflowDescriptionSchema } },
  errors: ['WORKFLOW_NOT_FOUND', 'TEMPORAL_UNAVAILABLE'],
  handler: (services) => async (ctx, { params: { workflowId } }) => {
    const client = requireTemporal(services);
    ctx.body = (await withTemporal(workflowId, () => describeWorkflow(client, workflowId))) satisfies WorkflowDescription;
  },
});
