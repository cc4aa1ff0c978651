/** PUT /v1/limits/session/{symbol}/{session} (admin) — edit one asset's limits for one session. */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { updateSessionLimit } from '../../../db/queries/session-limits';
import { Decimal } from '../../../domain/money';
import { readJsonBody } from '../../framework/body';
import { parseBody, parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { LIMIT_SESSIONS, sessionLimitBlock } from './session-limits';

const sessionParam = z.object({ session: z.enum(LIMIT_SESSIONS as [string, ...string[]]) });

const limitBody = z.strictObject({
  tradable: z.boolean(),
  maxAttestationCount: z.string().regex(/^\d{1,9}$/, 'must be a non-negative integer string'),
  maxActiveNotionalValue: z.string().regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal string'),
  /** Optional: the per-session notional cap; defaults to four times the active one. */
  maxSessionNotionalValue: z.string().regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal string').optional(),
});

export function updateSessionLimitRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const asset = await services.assets.resolve(ctx.params.symbol);
    const { session } = parseQuery(sessionParam, { session: ctx.params.session });
    const body = parseBody(limitBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    const record = await updateSessionLimit(services.db, {
      symbol: asset.symbol,
      session: session as (typeof LIMIT_SESSIONS)[number],
      tradable: body.tradable,
      maxAttestationCount: Number(body.maxAttestationCount),
      maxActiveNotionalValue: body.maxActiveNotionalValue,
      maxSessionNotionalValue: body.maxSessionNotionalValue ?? new Decimal(body.maxActiveNotionalValue).times(4).toFixed(),
    });
    await services.changed('session-limits');
    ctx.body = { symbol: asset.symbol, session, ...sessionLimitBlock(record) };
  };
}
