/** What the sandbox's routes share: the account a path names, as far as the credential may act on it. */
import type { Context } from 'koa';
import type { Pool } from 'pg';
import { BrokerError } from '../errors';
import type { BrokerState } from '../framework/state';
import { findAccount, type BrokerAccount } from '../queries/accounts';

/**
 * The account, if the caller may act on it: a participant only on the accounts it owns, the issuer only on its own
 * account (as on the real network, where the issuer calls back and reads under the account it holds at the broker,
 * and sees every participant's records from there). Anything else is 404, so nobody learns of others' accounts.
 */
export async function requireAccount(db: Pick<Pool, 'query'>, ctx: Context & { state: BrokerState }, accountId: string): Promise<BrokerAccount> {
  const credential = ctx.state.credential!;
  const account = await findAccount(db, accountId);
  const allowed = account !== undefined && (credential.role === 'participant' ? account.ownerKey === credential.key : account.kind === 'issuer');
  if (!allowed) throw new BrokerError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  return account;
}

/**
 * The participant account whose records a path may show: `undefined` for the issuer's account, which sees every
 * participant's records, else the account itself.
 */
export function recordsScope(account: BrokerAccount): string | undefined {
  return account.kind === 'issuer' ? undefined : account.accountId;
}
