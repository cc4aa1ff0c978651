/**
 * GET /v1/status/assets[?symbol] — active and upcoming asset status events (pauses, limits),
 * unscheduled ones set by an operator and scheduled windows such as dividends or splits.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { listCurrentAssetEvents, type AssetStatusEventRecord } from '../../../db/queries/operator-controls';
import { parseQuery } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';

export interface AssetStatusView {
  symbol: string;
  status: 'active' | 'upcoming';
  type: 'scheduled' | 'unscheduled';
  reason: { code: AssetStatusEventRecord['code']; message: string };
  start: number;
  end: number | null;
  eventId: string;
  updateSharesMultiplier: boolean;
}

export function assetStatusView(event: AssetStatusEventRecord, now: number): AssetStatusView {
  return {
    symbol: event.symbol,
    status: event.startsAt <= now ? 'active' : 'upcoming',
    type: event.type,
    reason: { code: event.code, message: event.reason },
    start: event.startsAt,
    end: event.endsAt,
    eventId: event.eventId,
    updateSharesMultiplier: event.updateSharesMultiplier,
  };
}

const statusQuery = z.object({ symbol: z.string().optional() });

export function assetStatusesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { symbol } = parseQuery(statusQuery, ctx.query, { symbol: 'INVALID_SYMBOL' });
    const asset = symbol === undefined ? undefined : await services.assets.resolve(symbol);
    await respondCached(ctx, services, { tag: 'status', key: `assets:${asset?.symbol ?? '*'}`, ttlMs: 1_000 }, async () => {
      const now = services.clock();
      const events = await listCurrentAssetEvents(services.db, now, asset?.symbol);
      return events.map((event) => assetStatusView(event, now));
    });
  };
}
