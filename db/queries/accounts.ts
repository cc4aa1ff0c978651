/** Accounts: the users of the platform. An account's userId (bytes32) is signed into its attestations. */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../pool';

export interface Account {
  id: string;
  userId: `0x${string}`;
  name: string;
}

/** Creates an account with a fresh random userId. */
export async function createAccount(db: Queryable, name: string): Promise<Account> {
  const id = `acct_${randomBytes(8).toString('hex')}`;
  const userId = `0x${randomBytes(32).toString('hex')}` as const;
  const { rows } = await db.query<Account>(
    `INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, $3) RETURNING id, user_id AS "userId", name`,
    [id, userId, name],
  );
  return rows[0]!;
}

export async function findAccount(db: Queryable, id: string): Promise<Account | undefined> {
  const { rows } = await db.query<Account>(`SELECT id, user_id AS "userId", name FROM accounts WHERE id = $1`, [id]);
  return rows[0];
}
