/** DELETE /v1/tokenization/clients/{clientId}/link (admin) — removes the client's link to its partner account. */
import type { Middleware } from 'koa';
import { listPartnerWallets, unlinkPartnerAccount } from '../../../db/queries/partner';
import { ApiError } from '../../framework/errors';
import { parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { clientParams, clientView } from './fields';

export function unlinkClientRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { clientId } = parseParams(clientParams, ctx.params);
    const client = await unlinkPartnerAccount(services.db, clientId);
    if (!client) throw new ApiError('CLIENT_NOT_FOUND', `No client ${clientId} is onboarded for the partner flow`);
    ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
  };
}
