/**
 * PUT /v1/accounts/{account_id}/tokenization/client (participant) — stores the issuer's `client_id` for the account
 * (what the issuer's connect endpoint answered), the manual path beside POST …/tokenization/connect. 200 with the
 * account; storing the same id again changes nothing; another id on a linked account, or an id another account
 * holds, is 409 CLIENT_ALREADY_LINKED.
 */
import type { Middleware } from 'koa';
import type { Pool } from 'pg';
import { z } from 'zod';
import { BrokerError } from '../errors';
import { accountParams, identifierSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import { accountPositions, findAccount, linkClient } from '../queries/accounts';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';
import { accountView, type AccountView } from './get-account';

const linkBody = z.strictObject({ client_id: identifierSchema });

/** Stores the client id on the account (refusing with 409 what `linkClient` refuses) and answers the account view. */
export async function linkAndView(db: Pool, accountId: string, clientId: string): Promise<AccountView> {
  const outcome = await linkClient(db, accountId, clientId);
  if (outcome === 'account_linked_elsewhere') throw new BrokerError('CLIENT_ALREADY_LINKED', `Account ${accountId} is linked to another client id`);
  if (outcome === 'client_taken') throw new BrokerError('CLIENT_ALREADY_LINKED', `Client id ${clientId} is linked to another account`);
  const account = (await findAccount(db, accountId))!;
  return accountView(account, await accountPositions(db, accountId));
}

export function linkClientRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const body = parseBody(linkBody, await readJsonBody(ctx, services.bodyLimitBytes));
    await requireAccount(services.db, ctx, accountId);
    ctx.body = await linkAndView(services.db, accountId, body.client_id);
  };
}
