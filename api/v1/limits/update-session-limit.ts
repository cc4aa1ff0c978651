/** PUT /v1/limits/session/{symbol}/{session} (admin) — edit one asset's limits for one session. */
import { z } from 'zod';
import { updateSessionLimit } from '../../../db/queries/session-limits';
import { Decimal } from '../../../domain/money';
import { symbolSchema } from '../../../domain/token-symbol';
import { SYMBOL_PARAM_CODES } from '../../framework/path-params';
import { defineOperation } from '../../contract/operation';
import { LIMIT_SESSIONS, sessionLimitSchema, type SessionLimit } from './schemas';
import { sessionLimitBlock } from './session-limits';

const limitParams = z.object({ symbol: symbolSchema, session: z.enum(LIMIT_SESSIONS).describe('The market session.') });

const limitBody = z.strictObject({
  tradable: z.boolean().describe('Whether the asset trades in the session.'),
  maxAttestationCount: z.string().regex(/^\d{1,9}$/, 'must be a non-negative integer string').describe('Most outstanding attestations per user.'),
  maxActiveNotionalValue: z
    .string()
    .regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal string')
    .describe("Most USD notional of a user's outstanding attestations."),
  /** Optional: the per-session notional cap; defaults to four times the active one. */
  maxSessionNotionalValue: z
    .string()
    .regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal string')
    .optional()
    .describe('Most USD notional a user may attest in one session; default four times `maxActiveNotionalValue`.'),
});

export const updateSessionLimitOperation = defineOperation({
  method: 'put',
  path: '/v1/limits/session/{symbol}/{session}',
  operationId: 'updateSessionLimit',
  summary: "Set one asset's limits for one session",
  description: 'Replaces the limits; attestations already outstanding keep counting against the new ones.',
  access: 'admin',
  params: limitParams,
  body: limitBody,
  fieldCodes: SYMBOL_PARAM_CODES,
  answers: { 200: { description: 'The limits as stored.', schema: sessionLimitSchema } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { params, body }) => {
    const asset = await services.assets.resolve(params.symbol);
    const { session } = params;
    const record = await updateSessionLimit(services.db, {
      symbol: asset.symbol,
      session,
      tradable: body.tradable,
      maxAttestationCount: Number(body.maxAttestationCount),
      maxActiveNotionalValue: body.maxActiveNotionalValue,
      maxSessionNotionalValue: body.maxSessionNotionalValue ?? new Decimal(body.maxActiveNotionalValue).times(4).toFixed(),
    });
    await services.changed('session-limits');
    ctx.body = { symbol: asset.symbol, session, ...sessionLimitBlock(record) } satisfies SessionLimit;
  },
});
