/** The answers of the status resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import type { ConventionalSession } from '../../../domain/calendar';
import type { MarketStatusName } from '../../../domain/market-status';
import { component } from '../../contract/components';

const CONVENTIONAL_SESSIONS = ['regular', 'premarket', 'postmarket', 'overnight'] as const satisfies readonly ConventionalSession[];
const MARKET_STATUS_NAMES = [...CONVENTIONAL_SESSIONS, 'paused', 'closed'] as const satisfies readonly MarketStatusName[];
const isoTime = z.iso.datetime();

export const marketStatusSchema = component(
  'MarketStatus',
  z.object({
    timestamp: isoTime.describe('When the status was computed (ISO-8601, UTC).'),
    isOpen: z.boolean().describe('A conventional session is running and the market is not paused.'),
    marketStatus: z
      .enum(MARKET_STATUS_NAMES)
      .describe(
        'The conventional session running (America/New_York: `premarket` 04:01–09:29, `regular` 09:31–15:59, `postmarket` 16:01–19:59, `overnight` 20:05–03:55; NYSE holidays and early closes), `paused` in a transition pause between two of them or while an operator paused the market, `closed` when none runs (weekends, holidays: see `offhours`).',
      ),
    nextOpenSession: z.enum(CONVENTIONAL_SESSIONS).describe('The conventional session that opens next (after the current one).'),
    nextOpen: isoTime.describe('When that session opens (ISO-8601, UTC).'),
    nextClose: isoTime.describe('When the running session closes, otherwise when the next one does (ISO-8601, UTC).'),
    offhours: z
      .object({
        isOpen: z.boolean().describe('The off-hours window runs and the market is not paused by an operator.'),
        nextOpen: isoTime.describe('When the next off-hours window opens (the one after the current one while it runs).'),
        nextClose: isoTime.describe('When the running off-hours window closes, otherwise when the next one does.'),
      })
      .describe('The off-hours window (weekends and holidays, 20:05 after the last session to 19:55 before the next overnight), a track beside the conventional sessions.'),
    reason: z
      .object({
        code: z.enum(['MARKET_PAUSED', 'MARKET_CLOSED']),
        message: z.string(),
        documentation: z.string().describe("The code's entry in the error reference."),
      })
      .nullable()
      .describe('Why the market is not open: `MARKET_PAUSED` (a transition between sessions, or an operator with their reason) or `MARKET_CLOSED` (no session runs); null while open.'),
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
      code: z
        .enum(['ASSET_PAUSED', 'ASSET_LIMITED'])
        .describe('What the event does to orders while active: `ASSET_PAUSED` refuses them; `ASSET_LIMITED` refuses those over the limited size (`MAX_LIMIT_REACHED`), or every buy when `redeemOnly` (`ASSET_REDEEM_ONLY`).'),
      message: z.string().describe("The operator's reason, or the scheduled event's reason (`cash_dividend`, `stock_split`, …)."),
      documentation: z.string().describe("The code's entry in the error reference."),
    }),
    start: z.iso.datetime().describe('When the event starts (ISO-8601, UTC).'),
    end: z.iso.datetime().optional().describe('When it ends (ISO-8601, UTC); absent while open-ended.'),
    eventId: z
      .string()
      .describe("Names the event: an operator's for `DELETE /v1/status/assets/events/{eventId}`; a dividend's pause is `div_<symbol>_<ex-date>` and cannot be deleted."),
    redeemOnly: z
      .literal(true)
      .optional()
      .describe("Present on an operator's redeem-only event (scheduled with code `ASSET_REDEEM_ONLY`): sells are attested, buys refused. Its reason reads `ASSET_LIMITED`, the nearest of the reference's two codes."),
    updateSharesMultiplier: z
      .boolean()
      .describe("Whether the event changes the shares multiplier (a split, say), as the operator declared it; false for a dividend's pause (the dividend is reinvested at 09:30 on its ex-date, after the pause)."),
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
