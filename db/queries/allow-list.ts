/**
 * An account's wallet allow-list: whether the account trades only through listed wallets, and the wallets an
 * operator listed per chain. Addresses are stored canonical — lowercase hex on the EVM chains, the base58 text as it
 * is on Solana (base58 is case-sensitive) — so a checksummed and a lowercase spelling are one wallet.
 */
import { isEvmChain } from '../../domain/chains';
import type { Queryable } from '../pool';

export interface AllowedWalletRecord {
  chain: string;
  address: string;
  addedAt: Date;
}

export interface AllowListRecord {
  accountId: string;
  /** Whether attestations must come from listed wallets. */
  required: boolean;
  wallets: AllowedWalletRecord[];
}

/** The address as the allow-list stores and compares it on `chain`. */
export function canonicalAddress(chain: string, address: string): string {
  return isEvmChain(chain) ? address.toLowerCase() : address;
}

/** The account's allow-list, wallets by chain then address; undefined when there is no such account. */
export async function getAllowList(db: Queryable, accountId: string): Promise<AllowListRecord | undefined> {
  const { rows } = await db.query<{ required: boolean; wallets: { chain: string; address: string; addedAt: string }[] }>(
    `SELECT a.require_allowed_wallets AS required,
            coalesce((SELECT json_agg(json_build_object('chain', w.chain, 'address', w.address, 'addedAt', w.added_at) ORDER BY w.chain, w.address)
                        FROM allowed_wallets w WHERE w.account_id = a.id), '[]') AS wallets
       FROM accounts a WHERE a.id = $1`,
    [accountId],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { accountId, required: row.required, wallets: row.wallets.map((wallet) => ({ ...wallet, addedAt: new Date(wallet.addedAt) })) };
}

/** Turns the requirement on or off; setting what is already set changes nothing. */
export async function setAllowListRequired(db: Queryable, accountId: string, required: boolean): Promise<void> {
  await db.query('UPDATE accounts SET require_allowed_wallets = $2 WHERE id = $1 AND require_allowed_wallets <> $2', [accountId, required]);
}

/** Lists a wallet for the account on the chain; a wallet already listed keeps its first `addedAt`. */
export async function addAllowedWallet(db: Queryable, entry: { accountId: string; chain: string; address: string }): Promise<void> {
  await db.query('INSERT INTO allowed_wallets (account_id, chain, address) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    entry.accountId,
    entry.chain,
    canonicalAddress(entry.chain, entry.address),
  ]);
}

/** Takes a wallet off the account's list on the chain; one that was not listed changes nothing. */
export async function removeAllowedWallet(db: Queryable, entry: { accountId: string; chain: string; address: string }): Promise<void> {
  await db.query('DELETE FROM allowed_wallets WHERE account_id = $1 AND chain = $2 AND address = $3', [
    entry.accountId,
    entry.chain,
    canonicalAddress(entry.chain, entry.address),
  ]);
}

/** Whether the account may use the wallet on the chain: it does not require listed wallets, or the wallet is listed. */
export async function walletAllowed(db: Queryable, entry: { accountId: string; chain: string; address: string }): Promise<boolean> {
  const { rows } = await db.query<{ allowed: boolean }>(
    `SELECT NOT a.require_allowed_wallets
            OR EXISTS (SELECT 1 FROM allowed_wallets w WHERE w.account_id = a.id AND w.chain = $2 AND w.address = $3) AS allowed
       FROM accounts a WHERE a.id = $1`,
    [entry.accountId, entry.chain, canonicalAddress(entry.chain, entry.address)],
  );
  return rows[0]?.allowed ?? false;
}

/**
 * The statement an order reads under its lock (db/queries/attestations.ts embeds it), written with each value's
 * placeholder: the first wallet that may use the order's attestation and is not on the account's list, or null. On
 * Solana that is the request's `userAddress`, which the signature binds. On an EVM chain the signature binds the
 * account's userId, which every wallet the identity registry maps to it may use: so each of the account's wallets
 * there (every one GET /v1/accounts/{accountId}/wallets lists) must be listed. Null whenever the account does not
 * require listed wallets.
 */
export function unlistedWalletSql(placeholders: { accountId: string; chain: string; userAddress: string }): string {
  const { accountId, chain, userAddress } = placeholders;
  return `SELECT CASE
            WHEN NOT coalesce((SELECT a.require_allowed_wallets FROM accounts a WHERE a.id = ${accountId}), false) THEN NULL
            WHEN ${userAddress}::text IS NOT NULL THEN
              (SELECT ${userAddress}::text WHERE NOT EXISTS
                (SELECT 1 FROM allowed_wallets l WHERE l.account_id = ${accountId} AND l.chain = ${chain} AND l.address = ${userAddress}::text))
            ELSE
              (SELECT min(w.address) FROM account_wallets w
                WHERE w.account_id = ${accountId} AND w.chain = ${chain} AND w.state <> 'unregistered'
                  AND NOT EXISTS (SELECT 1 FROM allowed_wallets l WHERE l.account_id = ${accountId} AND l.chain = ${chain} AND l.address = w.address))
          END AS "unlistedWallet"`;
}
