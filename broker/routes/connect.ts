/**
 * POST /v1/accounts/{account_id}/tokenization/connect (participant) `{issuer}` — what the brokerage's UI does when a
 * participant links its account to the issuer: the sandbox calls the issuer's `POST /v1/tokenization/accounts/connect`
 * `{email, account}` (the account's email and number) and stores the `client_id` it answers, exactly as
 * PUT …/tokenization/client would. 200 with the account. An account already linked is answered as it is, without
 * calling the issuer (which would answer 409 for a client it has linked). Nothing is stored unless the issuer
 * answered a client id: its 404 is ISSUER_CLIENT_NOT_FOUND, its 409 CLIENT_ALREADY_LINKED, no usable answer
 * 503 ISSUER_UNAVAILABLE with `Retry-After`.
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import { BrokerError } from '../errors';
import { accountParams, identifierSchema } from '../fields';
import { readJsonBody } from '../framework/body';
import type { BrokerState } from '../framework/state';
import { parseBody, parseParams } from '../framework/validation';
import type { ConnectAnswer } from '../issuer-client';
import { accountPositions, findAccount, type BrokerAccount } from '../queries/accounts';
import type { BrokerServices } from '../services';
import { requireAccount } from './context';
import { accountView, type AccountView } from './get-account';
import { linkAndView } from './link-client';

const connectBody = z.strictObject({ issuer: identifierSchema });

/** Seconds a participant is told to wait before connecting again when the issuer did not answer. */
const RETRY_AFTER_SECONDS = 5;

export function connectRoute(services: BrokerServices): Middleware<BrokerState> {
  return async (ctx) => {
    const { account_id: accountId } = parseParams(accountParams, ctx.params);
    const body = parseBody(connectBody, await readJsonBody(ctx, services.bodyLimitBytes));
    const account = await requireAccount(services.db, ctx, accountId);
    if (body.issuer !== services.issuerId) throw new BrokerError('UNKNOWN_ISSUER', `issuer must be ${services.issuerId}`);
    if (account.clientId) {
      ctx.body = await viewOf(services, account);
      return;
    }
    const answer = await services.issuer.connectAccount({ email: account.email, accountNumber: account.accountNumber });
    ctx.body = await settle(services, account, answer);
  };
}

async function viewOf(services: BrokerServices, account: BrokerAccount): Promise<AccountView> {
  return accountView(account, await accountPositions(services.db, account.accountId));
}

/** Stores the client id the issuer answered, or turns its refusal into the sandbox's error. */
async function settle(services: BrokerServices, account: BrokerAccount, answer: ConnectAnswer): Promise<AccountView> {
  switch (answer.kind) {
    case 'connected':
      return linkAndView(services.db, account.accountId, answer.clientId);
    case 'unknown_client':
      throw new BrokerError('ISSUER_CLIENT_NOT_FOUND', `The issuer has no client with email ${account.email}: ${answer.message}`);
    case 'already_linked': {
      // A concurrent connect of this account may have won the race and stored the client id meanwhile.
      const current = await findAccount(services.db, account.accountId);
      if (current?.clientId) return viewOf(services, current);
      throw new BrokerError('CLIENT_ALREADY_LINKED', `The issuer's client for ${account.email} is already linked: ${answer.message}`);
    }
    case 'refused':
      throw new BrokerError('ISSUER_REFUSED', `The issuer refused the connect (${answer.status}): ${answer.code}: ${answer.message}`);
    case 'unavailable':
      services.logger.warn({ accountId: account.accountId, error: answer.error }, 'issuer connect unavailable');
      throw new BrokerError('ISSUER_UNAVAILABLE', 'The issuer did not answer the connect; nothing was stored, try again', {
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      });
  }
}
