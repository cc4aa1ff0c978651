/** The answers of the limits resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { decimalString, epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';
import type { LimitSession } from '../../../db/queries/session-limits';
import { LIMIT_REFUSALS, TRADING_RESTRICTIONS } from '../attestations/context';

export const LIMIT_SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const satisfies readonly LimitSession[];
const countString = z.string().regex(/^\d+$/);

export const sessionLimitBlockSchema = component(
  'SessionLimitBlock',
  z.object({
    tradable: z.boolean().describe('Whether the asset trades in the session.'),
    maxAttestationCount: countString.describe("Most outstanding attestations a user may hold for the asset."),
    maxActiveNotionalValue: decimalString.describe("Most USD notional a user's outstanding attestations for the asset may add up to."),
  }),
);
export type SessionLimitBlock = z.infer<typeof sessionLimitBlockSchema>;

export const sessionLimitsEntrySchema = component(
  'SessionLimitsEntry',
  z.object({
    symbol: z.string(),
    premarket: sessionLimitBlockSchema,
    regular: sessionLimitBlockSchema,
    postmarket: sessionLimitBlockSchema,
    overnight: sessionLimitBlockSchema,
    offhours: sessionLimitBlockSchema,
  }),
);
export type SessionLimitsEntry = z.infer<typeof sessionLimitsEntrySchema>;

export const sessionLimitsSchema = component(
  'SessionLimits',
  z.object({ limits: z.array(sessionLimitsEntrySchema).describe('One entry per asset.'), timestamp: epochMs }),
);
export type SessionLimits = z.infer<typeof sessionLimitsSchema>;

export const sessionLimitSchema = component(
  'SessionLimit',
  z.object({ symbol: z.string(), session: z.enum(LIMIT_SESSIONS), ...sessionLimitBlockSchema.shape }).describe("One asset's limits for one session."),
);
export type SessionLimit = z.infer<typeof sessionLimitSchema>;

/** Why trading is restricted: the refusal an attestation would meet now, or `ASSET_LIMITED` (it trades, with smaller orders). */
export const TRADING_LIMIT_REASONS = [...TRADING_RESTRICTIONS, 'ASSET_REDEEM_ONLY', 'PRICE_UNAVAILABLE', ...LIMIT_REFUSALS, 'ASSET_LIMITED'] as const;
export type TradingLimitReason = (typeof TRADING_LIMIT_REASONS)[number];

export const tradingLimitsSchema = component(
  'TradingLimits',
  z.object({
    timestamp: epochMs,
    symbol: z.string(),
    side: z.enum(['buy', 'sell']),
    maxTokens: decimalString.describe('Most tokens an attestation may carry now (at the current short-duration price); `0` when trading is closed.'),
    maxNotionalValue: decimalString.describe('Most USD notional an attestation may carry now; `0` when trading is closed.'),
    remainingAttestations: countString.describe('Further attestations allowed for the asset.'),
    isAssetTradingOpen: z.boolean().describe('Whether the user may attest the asset now.'),
    reason: z
      .object({
        message: z.string(),
        documentation: z.url().describe("The code's entry in the error reference."),
        code: z.enum(TRADING_LIMIT_REASONS).describe('The error code an attestation would be refused with.'),
      })
      .optional()
      .describe('Present when trading is restricted, or the asset is limited to smaller orders.'),
  }),
);
export type TradingLimits = z.infer<typeof tradingLimitsSchema>;
