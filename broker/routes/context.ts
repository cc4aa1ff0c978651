/** What the sandbox's routes share: the account a path names, as far as the credential may act on it. */
import type { Context } from 'koa';
import type { Pool } from 'pg';
import { BrokerError } from '../errors';
import type { BrokerState } from '../framework/state';
import { findAccount, type BrokerAccount } from '../queries/accounts';

/**
 * The account, if the caller may act on it: a participant only on the accounts it owns, the issuer on any
 * participant's account. Anything else is 404, so a participant learns nothing of others' accounts.
 */
export async function requireAccount(db: Pick<Pool, 'query'>, ctx: Context & { state: BrokerState }, accountId: string): Promise<BrokerAccount> {
  const credential = ctx.state.credential!;
  const account = await findAccount(db, accountId);
  const allowed =
    account !== undefined && (credential.role === 'participant' ? account.ownerKey === credential.key : account.kind === 'participant');
  if (!allowed) throw new BrokerError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  return account;
}
