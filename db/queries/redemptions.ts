/** Burns through the issuer contract (`redemptions`, one row per IssuerRedeem log), as the redemption workflow records them. */
import type { Queryable } from '../pool';

/** One IssuerRedeem log, as the redemption workflow records it. */
export interface RedemptionRecord {
  redemptionId: string;
  chain: string;
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: number;
  /** Epoch milliseconds. */
  blockTime: number;
  wallet: `0x${string}`;
  userId: `0x${string}`;
  token: `0x${string}`;
  symbol: string | null;
  /** Token base units (18 decimals). */
  amount: string;
  /** USD, 18 decimals, as the contract reported it. */
  usdNotional: string;
  state: string;
}

const REDEMPTION_COLUMNS = `redemption_id AS "redemptionId", chain, tx_hash AS "txHash", log_index AS "logIndex", block_number AS "blockNumber",
  block_time AS "blockTime", wallet, user_id AS "userId", token, symbol, amount::text, usd_notional::text AS "usdNotional", state`;

/** Records a redemption as `pending` once; a second call answers the row already there. */
export async function recordRedemption(db: Queryable, redemption: Omit<RedemptionRecord, 'state'>): Promise<RedemptionRecord> {
  const { rows } = await db.query<RedemptionRecord>(
    `WITH inserted AS (
       INSERT INTO redemptions (redemption_id, chain, tx_hash, log_index, block_number, block_time, wallet, user_id, token, symbol, amount, usd_notional)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::numeric, $12::numeric)
       ON CONFLICT (redemption_id) DO NOTHING
       RETURNING ${REDEMPTION_COLUMNS}
     )
     SELECT * FROM inserted UNION ALL SELECT ${REDEMPTION_COLUMNS} FROM redemptions WHERE redemption_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)`,
    [
      redemption.redemptionId,
      redemption.chain,
      redemption.txHash,
      redemption.logIndex,
      redemption.blockNumber,
      redemption.blockTime,
      redemption.wallet,
      redemption.userId,
      redemption.token,
      redemption.symbol,
      redemption.amount,
      redemption.usdNotional,
    ],
  );
  return rows[0]!;
}

/** A recorded burn as its delivery starts: where it is, what it burnt, and the partner client linked to its wallet, if any. */
export interface RedemptionToDeliver {
  chain: string;
  wallet: string;
  symbol: string | null;
  /** The ticker of the token's underlying (null for a token that is not the product's). */
  ticker: string | null;
  /** Token base units (18 decimals). */
  amount: string;
  txHash: string;
  /** The client whose wallet it is, enabled for the partner flow and linked to a partner account; null otherwise. */
  clientId: string | null;
}

export async function findRedemptionToDeliver(db: Queryable, redemptionId: string): Promise<RedemptionToDeliver | undefined> {
  const { rows } = await db.query<RedemptionToDeliver>(
    `SELECT r.chain, r.wallet, r.symbol, (SELECT a.ticker FROM assets a WHERE a.symbol = r.symbol) AS ticker, r.amount::text, r.tx_hash AS "txHash",
            (SELECT w.account_id FROM account_wallets w JOIN partner_clients c ON c.client_id = w.account_id
              WHERE w.chain = r.chain AND w.address = r.wallet AND w.partner_enabled AND c.partner_account IS NOT NULL) AS "clientId"
       FROM redemptions r WHERE r.redemption_id = $1`,
    [redemptionId],
  );
  return rows[0];
}

/** Redemptions seen on chain per state (`needs_review`: waiting for an operator). */
export async function countRedemptionsByState(db: Queryable): Promise<{ state: string; count: number }[]> {
  const { rows } = await db.query<{ state: string; count: number }>(`SELECT state, count(*)::int AS count FROM redemptions GROUP BY state`);
  return rows;
}
