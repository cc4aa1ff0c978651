/**
 * Liveness and readiness for supervisors and load balancers, outside /v1 and without a key:
 * `GET /health` answers while the process serves requests; `GET /ready` is 503 while PostgreSQL, Temporal or
 * another registered dependency (a chain, a chain's watcher) is down, and names each one's state.
 */
import { z } from 'zod';
import { component } from '../contract/components';
import { defineOperation, type Resource } from '../contract/operation';
import { checkReadiness } from './readiness';

const dependencyStateSchema = z.union([
  z.object({ status: z.literal('up'), latencyMs: z.number().nonnegative() }),
  z.object({
    status: z.literal('down'),
    error: z.string().describe('`unreachable`, `timed out`, or what the dependency says is wrong (a halted chain watcher: `halted: …` naming the block and log).'),
  }),
  z.object({ status: z.literal('not configured') }),
]);

const readinessSchema = component(
  'Readiness',
  z.object({
    status: z.enum(['ready', 'not ready']),
    checks: z
      .record(z.string(), dependencyStateSchema)
      .describe('Each dependency by name: `postgres`, `temporal`, each chain (`chain <chain>`) and its watcher (`watcher <chain>`).'),
  }),
);

const healthOperation = defineOperation({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  summary: 'Liveness',
  access: 'public',
  answers: { 200: { description: 'The process serves requests.', schema: z.object({ status: z.literal('ok') }) } },
  errors: [],
  handler: () => (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  },
});

const readyOperation = defineOperation({
  method: 'get',
  path: '/ready',
  operationId: 'getReadiness',
  summary: 'Readiness',
  access: 'public',
  answers: {
    200: { description: 'Every dependency is up (or not configured).', schema: readinessSchema },
    503: { description: 'A dependency is down; the checks say which.', schema: readinessSchema, headers: { 'Retry-After': 'Seconds to wait before asking again.' } },
  },
  errors: [],
  handler: (services) => async (ctx) => {
    const { ready, checks } = await checkReadiness({ db: services.db, temporal: services.temporal, extra: services.readinessChecks });
    ctx.set('Cache-Control', 'no-store');
    if (!ready) ctx.set('Retry-After', '5');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not ready', checks } satisfies z.infer<typeof readinessSchema>;
  },
});

export const healthResource: Resource = {
  tag: 'Service',
  description: 'Liveness, readiness and the documents that describe the API; no key needed.',
  operations: [healthOperation, readyOperation],
};
