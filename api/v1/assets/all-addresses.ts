/** GET /v1/assets/all/addresses — every token's contract addresses per chain. */
import type { Middleware } from 'koa';
import { listAddresses } from '../../../db/queries/assets';
import type { ApiServices } from '../../services';
import { respondCached } from '../respond';
import { addressEntryViews } from './views';

export function allAddressesRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    await respondCached(ctx, services, { tag: 'catalogue', key: 'addresses:all', ttlMs: 60_000 }, async () =>
      addressEntryViews(await listAddresses(services.db)),
    );
  };
}
