/** GET /v1/limits/session — static per-user maximums per asset and session. */
import type { Middleware } from 'koa';
import { listSessionLimits, type LimitSession, type SessionLimitRecord } from '../../../db/queries/session-limits';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';

export const LIMIT_SESSIONS: readonly LimitSession[] = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'];

export interface SessionLimitBlock {
  tradable: boolean;
  maxAttestationCount: string;
  maxActiveNotionalValue: string;
}

export type SessionLimitsEntry = { symbol: string } & Record<LimitSession, SessionLimitBlock>;

const CLOSED: SessionLimitBlock = { tradable: false, maxAttestationCount: '0', maxActiveNotionalValue: '0' };

export function sessionLimitBlock(record: SessionLimitRecord): SessionLimitBlock {
  return {
    tradable: record.tradable,
    maxAttestationCount: String(record.maxAttestationCount),
    maxActiveNotionalValue: record.maxActiveNotionalValue,
  };
}

export function sessionLimitsRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    await respondCached(ctx, services, { tag: 'session-limits', key: 'all', ttlMs: 60_000 }, async () => {
      const [assets, records] = await Promise.all([services.assets.all(), listSessionLimits(services.db)]);
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
  };
}
