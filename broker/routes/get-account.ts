/**
 * GET /v1/accounts/{account_id} (participant or issuer) — the account, the issuer client id it is linked to and its
 * positions (symbol → decimal string), so a person can watch shares leave and come back. A participant reads its own
 * accounts; the issuer its own (the shares backing its tokens).
 */
import type { Middleware } from 'koa';
import { accountParams } from '../fields';
import type { BrokerState } from '../framework/state';
import { parseParams } from '../framework/validation';
import { accountPositions, type BrokerAccount } from '../queries/accounts';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';

export interface AccountView {
  account_id: string;
  account_number: string;
  email: string;
  client_id: string | null;
  positions: Record<string, string>;
}

export function accountView(account: BrokerAccount, positions: Record<string, string>): AccountView {
  return { account_id: account.accountId, account_number: account.accountNumber, email: account.email, client_id: account.clientId, positions };
}

export function getAccountRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const account = await requireAccount(services.db, ctx, accountId);
    ctx.body = accountView(account, await accountPositions(services.db, accountId));
  };
}
