/**
 * PUT /v1/tokenization/clients/{clientId} (admin) `{email, eligible?, partnerAccount?}` — onboards an account for the
 * partner flow (or changes its email or eligibility): the partner then connects with that email, or the operator links
 * the partner account here. 200 with the client; 409 ACCOUNT_ALREADY_LINKED when the email is another client's or
 * either side of the link is linked to another.
 */
import type { Middleware } from 'koa';
import { findPartnerClient, linkPartnerAccount, listPartnerWallets, upsertPartnerClient } from '../../../db/queries/partner';
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
      const onboarded = await upsertPartnerClient(services.db, { clientId, email: body.email, eligible: body.eligible });
      if (body.partnerAccount !== undefined && !(await linkPartnerAccount(services.db, clientId, body.partnerAccount))) {
        throw new ApiError('ACCOUNT_ALREADY_LINKED', `Client ${clientId} or partner account ${body.partnerAccount} is linked to another`);
      }
      const client = body.partnerAccount === undefined ? onboarded : (await findPartnerClient(services.db, clientId))!;
      ctx.body = clientView(client, await listPartnerWallets(services.db, clientId));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new ApiError('ACCOUNT_ALREADY_LINKED', `Another client is onboarded with email ${body.email}`);
      throw error;
    }
  };
}
