/** The answers of the status resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import type { Session } from '../../../domain/calendar';
import { epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';
import { ASSET_STATUS_CODES } from '../../../db/queries/operator-controls';

const SESSION_NAMES = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const satisfies readonly Session[];

export const marketStatusSchema = component(
  'MarketStatus',
  z.object({
    timestamp: epochMs.describe('When the status was computed.'),
    isOpen: z.boolean().describe('A trading session is running and the market is not paused.'),
    marketStatus: z.enum([...SESSION_NAMES, 'paused']).describe('The current session, or `paused` while an operator paused the market.'),
    nextOpenSession: z.enum(SESSION_NAMES).nullable().describe('The trading session that starts next (after the current one).'),
    nextOpen: epochMs.nullable().describe('When that session starts.'),
    nextClose: epochMs.nullable().describe('When the current session ends if one is running, otherwise when the next one ends.'),
    reason: z
      .object({ code: z.enum(['MARKET_PAUSED', 'MARKET_CLOSED']), message: z.string() })
      .nullable()
      .describe('Why the market is not open: `MARKET_PAUSED` (an operator, with their reason) or `MARKET_CLOSED` (off-hours); null while open.'),
  }),
);
export type MarketStatusAnswer = z.infer<typeof marketStatusSchema>;

export const assetStatusSchema = component(
  'AssetStatus',
  z.object({
    symbol: z.string(),
    status: z.enum(['active', 'upcoming']).describe('`active` once it started, `upcoming` before.'),
    type: z.enum(['scheduled', 'unscheduled']).describe('`scheduled`: a window such as a dividend or split; `unscheduled`: an operator pause or limit.'),
    reason: z.object({
      code: z.enum(ASSET_STATUS_CODES).describe('The error code orders for the asset meet while the event is active (`ASSET_LIMITED`: only orders over the limited size, as `MAX_LIMIT_REACHED`; `ASSET_REDEEM_ONLY`: only buys).'),
      message: z.string().describe("The operator's reason, or the scheduled event's reason (`cash_dividend`, `stock_split`, …)."),
      documentation: z.string().describe("The code's entry in the error reference."),
    }),
    start: z.iso.datetime().describe('When the event starts (ISO-8601, UTC).'),
    end: z.iso.datetime().optional().describe('When it ends (ISO-8601, UTC); absent while open-ended.'),
    eventId: z.string().describe('Names the event for `DELETE /v1/status/assets/events/{eventId}`.'),
    updateSharesMultiplier: z.boolean().describe('Whether the event changes the shares multiplier (a split, say), as the operator declared it.'),
  }),
);
export type AssetStatus = z.infer<typeof assetStatusSchema>;

export const assetControlEndSchema = component(
  'AssetControlEnd',
  z.object({
    ended: z.int().nonnegative().describe('How many active operator events of the code ended (0 when none was active).'),
    statuses: z.array(assetStatusSchema).describe("The asset's remaining active and upcoming statuses."),
  }),
);
export type AssetControlEnd = z.infer<typeof assetControlEndSchema>;
