/**
 * An account's wallets per EVM chain: what the identity registry on that chain should hold. The API writes the
 * wanted state (`registering` or `unregistering`); the wallet-registration workflow brings the chain there and
 * records the outcome. Addresses are stored lowercase.
 */
import type { Queryable } from '../pool';

export type WalletState = 'registering' | 'registered' | 'unregistering' | 'unregistered' | 'failed';

export interface WalletRecord {
  chain: string;
  address: `0x${string}`;
  accountId: string;
  userId: `0x${string}`;
  state: WalletState;
  txHash: string | null;
  error: string | null;
  updatedAt: Date;
}

const COLUMNS = `w.chain, w.address, w.account_id AS "accountId", a.user_id AS "userId", w.state, w.tx_hash AS "txHash", w.error,
  w.updated_at AS "updatedAt"`;

export async function findWallet(db: Queryable, chain: string, address: string): Promise<WalletRecord | undefined> {
  const { rows } = await db.query<WalletRecord>(
    `SELECT ${COLUMNS} FROM account_wallets w JOIN accounts a ON a.id = w.account_id WHERE w.chain = $1 AND w.address = $2`,
    [chain, address.toLowerCase()],
  );
  return rows[0];
}

export async function listAccountWallets(db: Queryable, accountId: string): Promise<WalletRecord[]> {
  const { rows } = await db.query<WalletRecord>(
    `SELECT ${COLUMNS} FROM account_wallets w JOIN accounts a ON a.id = w.account_id
      WHERE w.account_id = $1 AND w.state <> 'unregistered' ORDER BY w.chain, w.address`,
    [accountId],
  );
  return rows;
}

export type RequestRegistrationOutcome =
  | { outcome: 'requested'; wallet: WalletRecord }
  | { outcome: 'unchanged'; wallet: WalletRecord }
  | { outcome: 'taken'; wallet: WalletRecord };

/**
 * Asks for a wallet to be registered to an account: a new row, a row given up earlier (unregistered or failed)
 * taken over, or the account's own row answered as it is. A wallet held by another account is `taken`.
 */
export async function requestWalletRegistration(db: Queryable, request: { chain: string; address: string; accountId: string }): Promise<RequestRegistrationOutcome> {
  const address = request.address.toLowerCase();
  const { rows } = await db.query<{ changed: boolean }>(
    `INSERT INTO account_wallets (chain, address, account_id, state) VALUES ($1, $2, $3, 'registering')
     ON CONFLICT (chain, address) DO UPDATE SET account_id = EXCLUDED.account_id, state = 'registering', tx_hash = NULL, error = NULL, updated_at = now()
       WHERE account_wallets.state IN ('unregistered', 'failed')
          OR (account_wallets.account_id = EXCLUDED.account_id AND account_wallets.state = 'unregistering')
     RETURNING true AS changed`,
    [request.chain, address, request.accountId],
  );
  const wallet = (await findWallet(db, request.chain, address))!;
  if (rows.length > 0) return { outcome: 'requested', wallet };
  return wallet.accountId === request.accountId ? { outcome: 'unchanged', wallet } : { outcome: 'taken', wallet };
}

/** Asks for an account's wallet to be removed from the registry; undefined when the account has no such wallet. */
export async function requestWalletUnregistration(db: Queryable, request: { chain: string; address: string; accountId: string }): Promise<WalletRecord | undefined> {
  const address = request.address.toLowerCase();
  await db.query(
    `UPDATE account_wallets SET state = 'unregistering', tx_hash = NULL, error = NULL, updated_at = now()
      WHERE chain = $1 AND address = $2 AND account_id = $3 AND state IN ('registering', 'registered', 'failed')`,
    [request.chain, address, request.accountId],
  );
  const wallet = await findWallet(db, request.chain, address);
  return wallet && wallet.accountId === request.accountId && wallet.state !== 'unregistered' ? wallet : undefined;
}

/** Records where the chain now stands, only if the wanted state is still the one that was applied. */
export async function recordWalletOutcome(
  db: Queryable,
  outcome: { chain: string; address: string; from: 'registering' | 'unregistering'; state: WalletState; txHash?: string | null; error?: string | null },
): Promise<WalletRecord | undefined> {
  await db.query(
    `UPDATE account_wallets SET state = $4, tx_hash = COALESCE($5, tx_hash), error = $6, updated_at = now()
      WHERE chain = $1 AND address = $2 AND state = $3`,
    [outcome.chain, outcome.address.toLowerCase(), outcome.from, outcome.state, outcome.txHash ?? null, outcome.error ?? null],
  );
  return await findWallet(db, outcome.chain, outcome.address);
}

/** The account a wallet is registered to on a chain, if any. */
export async function findWalletOwner(db: Queryable, chain: string, address: string): Promise<{ accountId: string; userId: `0x${string}` } | undefined> {
  const wallet = await findWallet(db, chain, address);
  return wallet && wallet.state === 'registered' ? { accountId: wallet.accountId, userId: wallet.userId } : undefined;
}

/** Marks a wallet of the client enabled (or not) for the flow; false when the client has no such wallet. */
export async function setWalletPartnerEnabled(db: Queryable, wallet: { chain: string; address: string; clientId: string; enabled: boolean }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE account_wallets SET partner_enabled = $4, updated_at = now() WHERE chain = $1 AND address = $2 AND account_id = $3`,
    [wallet.chain, wallet.address.toLowerCase(), wallet.clientId, wallet.enabled],
  );
  return rowCount === 1;
}

export interface PartnerWalletRecord {
  chain: string;
  address: `0x${string}`;
  clientId: string;
  /** The identity registry's state of the wallet. */
  state: WalletState;
  partnerEnabled: boolean;
}

/** The wallet as the flow sees it, whoever holds it. */
export async function findPartnerWallet(db: Queryable, chain: string, address: string): Promise<PartnerWalletRecord | undefined> {
  const { rows } = await db.query<PartnerWalletRecord>(
    `SELECT chain, address, account_id AS "clientId", state, partner_enabled AS "partnerEnabled" FROM account_wallets WHERE chain = $1 AND address = $2`,
    [chain, address.toLowerCase()],
  );
  return rows[0];
}

export async function listPartnerWallets(db: Queryable, clientId: string): Promise<PartnerWalletRecord[]> {
  const { rows } = await db.query<PartnerWalletRecord>(
    `SELECT chain, address, account_id AS "clientId", state, partner_enabled AS "partnerEnabled" FROM account_wallets
      WHERE account_id = $1 AND partner_enabled ORDER BY chain, address`,
    [clientId],
  );
  return rows;
}

/** The wallets whose registration change is still under way (`registering`, `unregistering`), oldest change first. */
export async function listWalletsUnderWay(db: Queryable): Promise<{ chain: string; address: string }[]> {
  const { rows } = await db.query<{ chain: string; address: string }>(
    `SELECT chain, address FROM account_wallets WHERE state IN ('registering', 'unregistering') ORDER BY updated_at`,
  );
  return rows;
}
