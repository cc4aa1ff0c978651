/**
 * The clients onboarded for the partner (brokerage) in-kind flow (`partner_clients`), and the brokerage account each
 * is linked to. Emails are stored lowercase.
 */
import type { Queryable } from '../pool';

export interface PartnerClientRecord {
  clientId: string;
  email: string;
  eligible: boolean;
  /** The partner's account number, once the partner linked it. */
  partnerAccount: string | null;
  linkedAt: Date | null;
}

const CLIENT_COLUMNS = `client_id AS "clientId", email, eligible, partner_account AS "partnerAccount", linked_at AS "linkedAt"`;

/** Onboards an account for the flow, or changes its email or eligibility (the link is kept). */
export async function upsertPartnerClient(db: Queryable, client: { clientId: string; email: string; eligible: boolean }): Promise<PartnerClientRecord> {
  const { rows } = await db.query<PartnerClientRecord>(
    `INSERT INTO partner_clients (client_id, email, eligible) VALUES ($1, lower($2), $3)
     ON CONFLICT (client_id) DO UPDATE SET email = EXCLUDED.email, eligible = EXCLUDED.eligible, updated_at = now()
     RETURNING ${CLIENT_COLUMNS}`,
    [client.clientId, client.email, client.eligible],
  );
  return rows[0]!;
}

export async function findPartnerClient(db: Queryable, clientId: string): Promise<PartnerClientRecord | undefined> {
  const { rows } = await db.query<PartnerClientRecord>(`SELECT ${CLIENT_COLUMNS} FROM partner_clients WHERE client_id = $1`, [clientId]);
  return rows[0];
}

export async function findPartnerClientByEmail(db: Queryable, email: string): Promise<PartnerClientRecord | undefined> {
  const { rows } = await db.query<PartnerClientRecord>(`SELECT ${CLIENT_COLUMNS} FROM partner_clients WHERE email = lower($1)`, [email]);
  return rows[0];
}

export type ConnectOutcome =
  | { outcome: 'linked'; client: PartnerClientRecord }
  | { outcome: 'unknown_email' }
  | { outcome: 'already_linked'; client: PartnerClientRecord };

/**
 * Links the partner account to the client onboarded with `email`. Linking the same pair again answers `linked`
 * (a retried connect); a client linked to another account, or an account linked to another client, is `already_linked`.
 */
export async function connectPartnerAccount(db: Queryable, request: { email: string; account: string }): Promise<ConnectOutcome> {
  const { rows } = await db.query<PartnerClientRecord>(
    `UPDATE partner_clients SET partner_account = $2, linked_at = now(), updated_at = now()
      WHERE email = lower($1) AND partner_account IS NULL
        AND NOT EXISTS (SELECT 1 FROM partner_clients WHERE partner_account = $2)
     RETURNING ${CLIENT_COLUMNS}`,
    [request.email, request.account],
  );
  if (rows[0]) return { outcome: 'linked', client: rows[0] };
  const client = await findPartnerClientByEmail(db, request.email);
  if (!client) return { outcome: 'unknown_email' };
  return client.partnerAccount === request.account ? { outcome: 'linked', client } : { outcome: 'already_linked', client };
}

/** Links the client to the partner account (an operator's link); false when either is linked to another. */
export async function linkPartnerAccount(db: Queryable, clientId: string, account: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE partner_clients SET partner_account = $2, linked_at = coalesce(linked_at, now()), updated_at = now()
      WHERE client_id = $1 AND (partner_account IS NULL OR partner_account = $2)
        AND NOT EXISTS (SELECT 1 FROM partner_clients WHERE partner_account = $2 AND client_id <> $1)`,
    [clientId, account],
  );
  return rowCount === 1;
}

/** Removes the client's link to its partner account; answers the client as it is afterwards. */
export async function unlinkPartnerAccount(db: Queryable, clientId: string): Promise<PartnerClientRecord | undefined> {
  const { rows } = await db.query<PartnerClientRecord>(
    `UPDATE partner_clients SET partner_account = NULL, linked_at = NULL, updated_at = now() WHERE client_id = $1 RETURNING ${CLIENT_COLUMNS}`,
    [clientId],
  );
  return rows[0];
}

