/**
 * PUT /v1/tokenization/clients/{clientId} (admin) `{email, eligible?}` — onboards an account for the partner flow
 * (or changes its email or eligibility): the partner then connects with that email. 200 with the client.
 */
import type { Middleware } from 'koa';
import { listPartnerWallets, upsertPartnerClient } from '../../../db/queries/partner';
import { readJsonBody } from '../../framework/body';
import { ApiError } from '../../framework/errors';
import { parseBody, parseParams } from '../../framework/validation';
import type { ApiServices } from '../../services';
import { requireAccount } from '../accounts/context';
import { clientBody, clientParams, clientView } from './fields';

export function putClientRoute(services: ApiServices): Middleware {
  return async (ctx) => {
    const { clientId } = parseParams(clientParams, ctx.params);
    const body = parseBody(clientBody, await readJsonBody(ctx, services.config.BODY_LIMIT_BYTES));
    await requireAccount(services, clientId);
    try {
      const client = await upsertPartnerClient(services.db, { clientId, email: body.email, eligible: body.eligible });
      ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new ApiError('ACCOUNT_ALREADY_LINKED', `Another client is onboarded with email ${body.email}`);
      throw error;
    }
  };
}
