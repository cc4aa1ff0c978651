/** GET /v1/status/market — the current session, or `paused` when an operator paused the market. */
import type { Middleware } from 'koa';
import { getMarketState } from '../../../db/queries/operator-controls';
import { marketStatus } from '../../../domain/market-status';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';

export function marketStatusRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    await respondCached(ctx, services, { tag: 'status', key: 'market', ttlMs: 1_000 }, async () =>
      marketStatus(services.clock(), await getMarketState(services.db)),
    );
  };
}
