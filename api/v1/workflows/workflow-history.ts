/** GET /v1/workflows/{workflowId}/history (admin) — the history as a timeline: event id, time, type, decoded payloads. */
import type { Middleware } from 'koa';
import { workflowTimeline } from '../../../temporal/inspection';
import type { ApiServices } from '../../services';
import { requireTemporal, withTemporal } from './temporal-client';
import { workflowIdParams } from '../../framework/path-params';
import { parseParams } from '../../framework/validation';

export function workflowHistoryRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { workflowId } = parseParams(workflowIdParams, ctx.params);
    const client = requireTemporal(services);
    ctx.body = { workflowId, events: await withTemporal(workflowId, () => workflowTimeline(client, workflowId)) };
  };
}
