/** GET /v1/workflows/{workflowId} (admin) — status, pending activities (attempts, last failure) and timers. */
import type { Middleware } from 'koa';
import { describeWorkflow } from '../../../temporal/inspection';
import type { ApiServices } from '../../services';
import { requireTemporal, withTemporal } from './temporal-client';
import { workflowIdParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';

export function describeWorkflowRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { workflowId } = parseParams(workflowIdParams, ctx.params);
    const client = requireTemporal(services);
    ctx.body = await withTemporal(workflowId, () => describeWorkflow(client, workflowId));
  };
}
