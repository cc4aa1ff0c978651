/** Sandbox accounts (participants' and the issuer's), their positions, and the issuer client id they are linked to. */
import type { Pool } from 'pg';
import { Decimal } from '../../domain/money';

type Queryable = Pick<Pool, 'query'>;

export interface BrokerAccount {
  accountId: string;
  accountNumber: string;
  email: string;
  kind: 'participant' | 'issuer';
  ownerKey: string | null;
  clientId: string | null;
}

interface AccountRow {
  account_id: string;
  account_number: string;
  email: string;
  kind: 'participant' | 'issuer';
  owner_key: string | null;
  client_id: string | null;
}

function toAccount(row: AccountRow): BrokerAccount {
  return {
    accountId: row.account_id,
    accountNumber: row.account_number,
    email: row.email,
    kind: row.kind,
    ownerKey: row.owner_key,
    clientId: row.client_id,
  };
}

const COLUMNS = 'account_id, account_number, email, kind, owner_key, client_id';

export async function findAccount(db: Queryable, accountId: string): Promise<BrokerAccount | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM broker.accounts WHERE account_id = $1`, [accountId]);
  return rows[0] && toAccount(rows[0]);
}

/** The participant account linked to an issuer client id. */
export async function findAccountByClientId(db: Queryable, clientId: string): Promise<BrokerAccount | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM broker.accounts WHERE client_id = $1 AND kind = 'participant'`, [clientId]);
  return rows[0] && toAccount(rows[0]);
}

export async function findIssuerAccount(db: Queryable): Promise<BrokerAccount | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM broker.accounts WHERE kind = 'issuer'`);
  return rows[0] && toAccount(rows[0]);
}

export interface NewAccount {
  accountId: string;
  accountNumber: string;
  email: string;
  kind: 'participant' | 'issuer';
  ownerKey: string | null;
}

/** Creates the account unless one with this id exists; answers the account as stored. */
export async function ensureAccount(db: Queryable, account: NewAccount): Promise<BrokerAccount> {
  await db.query(
    `INSERT INTO broker.accounts (account_id, account_number, email, kind, owner_key) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (account_id) DO NOTHING`,
    [account.accountId, account.accountNumber, account.email, account.kind, account.ownerKey],
  );
  const stored = await findAccount(db, account.accountId);
  if (!stored) throw new Error(`account ${account.accountId} could not be created`);
  return stored;
}

/** Positions of an account, symbol → canonical decimal string, symbols in order. */
export async function accountPositions(db: Queryable, accountId: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ symbol: string; qty: string }>(
    'SELECT symbol, qty FROM broker.positions WHERE account_id = $1 ORDER BY symbol',
    [accountId],
  );
  return Object.fromEntries(rows.map((row) => [row.symbol, new Decimal(row.qty).toFixed()]));
}

export type LinkOutcome = 'linked' | 'unchanged' | 'account_linked_elsewhere' | 'client_taken';

/** Stores the issuer client id of an account, once: a different id on a linked account, or an id another account holds, is refused. */
export async function linkClient(db: Queryable, accountId: string, clientId: string): Promise<LinkOutcome> {
  const { rows } = await db.query<{ client_id: string | null }>(
    `WITH linked AS (
       UPDATE broker.accounts SET client_id = $2
        WHERE account_id = $1 AND client_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM broker.accounts WHERE client_id = $2)
       RETURNING client_id)
     SELECT client_id FROM linked`,
    [accountId, clientId],
  ).catch((error: { code?: string }) => {
    // A concurrent link of the same client id to another account.
    if (error.code === '23505') return { rows: [] as { client_id: string | null }[] };
    throw error;
  });
  if (rows.length > 0) return 'linked';
  const account = await findAccount(db, accountId);
  if (account?.clientId === clientId) return 'unchanged';
  if (account?.clientId) return 'account_linked_elsewhere';
  return 'client_taken';
}
