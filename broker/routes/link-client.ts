/**
 * PUT /v1/accounts/{account_id}/tokenization/client (participant) — stores the issuer's `client_id` for the account
 * (what the issuer's connect endpoint answered). 200 with the account; storing the same id again changes nothing;
 * another id on a linked account, or an id another account holds, is 409 CLIENT_ALREADY_LINKED.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { BrokerError } from '../errors';
import { accountParams, identifierSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { accountPositions, findAccount, linkClient } from '../queries/accounts';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';
import { accountView } from './get-account';

const linkBody = z.strictObject({ client_id: identifierSchema });

export function linkClientRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const body = parseBody(linkBody, await readJsonBody(ctx, services.bodyLimitBytes));
    await requireAccount(services.db, ctx, accountId);
    const outcome = await linkClient(services.db, accountId, body.client_id);
    if (outcome === 'account_linked_elsewhere') throw new BrokerError('CLIENT_ALREADY_LINKED', `Account ${accountId} is linked to another client id`);
    if (outcome === 'client_taken') throw new BrokerError('CLIENT_ALREADY_LINKED', `Client id ${body.client_id} is linked to another account`);
    const account = (await findAccount(services.db, accountId))!;
    ctx.body = accountView(account, await accountPositions(services.db, accountId));
  };
}
