/** GET /v1/workflows (admin) — workflows filtered by type, status, id prefix and start time, newest first. */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { listWorkflows } from '../../../temporal/inspection';
import { parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requireTemporal, withTemporal } from './temporal-client';

const instant = z.union([z.string().regex(/^\d+$/).transform(Number), z.iso.datetime({ offset: true }).transform((s) => Date.parse(s))]);

const listQuery = z.object({
  type: z.string().min(1).max(200).optional(),
  status: z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TERMINATED', 'CONTINUED_AS_NEW', 'TIMED_OUT']).optional(),
  idPrefix: z.string().min(1).max(200).optional(),
  /** Epoch ms or ISO-8601. */
  startedAfter: instant.optional(),
  startedBefore: instant.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export function listWorkflowsRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const query = parseQuery(listQuery, ctx.query);
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
    ctx.body = { workflows };
  };
}
