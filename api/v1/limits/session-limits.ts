/** GET /v1/limits/session — static per-user maximums per asset and session. */
import { z } from 'zod';
import { symbolSchema } from '../../../domain/token-symbol';
import { listSessionLimits, type SessionLimitRecord } from '../../../db/queries/session-limits';
import { defineOperation } from '../../contract/operation';
import { respondCached } from '../respond';
import { LIMIT_SESSIONS, sessionLimitsSchema, type SessionLimitBlock, type SessionLimits, type SessionLimitsEntry } from './schemas';

const CLOSED: SessionLimitBlock = { tradable: false, maxAttestationCount: '0', maxActiveNotionalValue: '0' };

export function sessionLimitBlock(record: SessionLimitRecord): SessionLimitBlock {
  return {
    tradable: record.tradable,
    maxAttestationCount: String(record.maxAttestationCount),
    maxActiveNotionalValue: record.maxActiveNotionalValue,
  };
}

const sessionLimitsQuery = z.object({ symbol: symbolSchema.optional().describe('Only this token: the array still holds one object, its `limits` one entry.') });

export const sessionLimitsOperation = defineOperation({
  method: 'get',
  path: '/v1/limits/session',
  operationId: 'listSessionLimits',
  summary: 'Session limits of every asset',
  description:
    "The static per-user maximums of each asset in each session (`premarket`, `regular`, `postmarket`, `overnight`, `offhours`): whether it trades, how many outstanding attestations a user may hold, and their largest total notional. An asset without limits for a session is closed in it. `GET /v1/limits/trading` gives a user's real-time headroom.",
  access: 'read',
  query: sessionLimitsQuery,
  fieldCodes: { symbol: 'INVALID_SYMBOL' },
  answers: { 200: { description: 'An array holding one object: the limits of every asset, or of the one named, and when they were read.', schema: z.array(sessionLimitsSchema) } },
  errors: ['ASSET_NOT_FOUND'],
  handler: (services) => async (ctx, { query }) => {
    const only = query.symbol === undefined ? undefined : await services.assets.resolve(query.symbol);
    await respondCached(ctx, services, { tag: 'session-limits', key: only?.symbol ?? 'all', ttlMs: 60_000 }, async (): Promise<SessionLimits[]> => {
      const [assets, records] = await Promise.all([only ? [only] : services.assets.all(), listSessionLimits(services.db)]);
      const entries = new Map<string, SessionLimitsEntry>(
        assets.map((asset) => [
          asset.symbol,
          { symbol: asset.symbol, ...Object.fromEntries(LIMIT_SESSIONS.map((session) => [session, CLOSED])) } as SessionLimitsEntry,
        ]),
      );
      for (const record of records) {
        const entry = entries.get(record.symbol);
        if (entry) entry[record.session] = sessionLimitBlock(record);
      }
      return [{ limits: [...entries.values()], timestamp: services.clock() }];
    });
  },
});
