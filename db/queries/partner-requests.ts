/**
 * The mint and redemption requests of the partner (brokerage) in-kind flow (`partner_requests`; a redemption's state
 * is mirrored on its `redemptions` row). Addresses are stored lowercase; quantities travel as decimal strings.
 */
import type { Queryable } from '../pool';

/** A partner request mints tokens for delivered shares, or delivers shares for burnt tokens. */
export type PartnerKind = 'mint' | 'redeem';

export type PartnerRequestState =
  | 'awaiting_finality'
  | 'cancelled'
  | 'created'
  | 'confirmed'
  | 'minted'
  | 'pending'
  | 'needs_review'
  | 'delivering'
  | 'completed'
  | 'rejected';

/** The broker's signed mint request, as `processMint` needs it back. */
export interface SignedMintRequest {
  created: number;
  /** uint256 decimal string. */
  nonce: string;
  brokerSignature: `0x${string}`;
}

export interface PartnerRequestRecord {
  issuerRequestId: string;
  kind: PartnerKind;
  state: PartnerRequestState;
  clientId: string | null;
  chain: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  wallet: `0x${string}`;
  /** Shares, up to 9 decimals: requested (mint) or owed (redeem, once computed). */
  qty: string | null;
  /** Token base units: minted or burned. */
  tokenAmount: string | null;
  sharesMultiplier: string | null;
  shareDust: string | null;
  sessionStart: number | null;
  notionalUsd: string | null;
  tokenizationRequestId: string | null;
  mintRequest: SignedMintRequest | null;
  redemptionId: string | null;
  confirmStatus: 'completed' | 'rejected' | null;
  txHash: string | null;
  reason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const REQUEST_COLUMNS = `issuer_request_id AS "issuerRequestId", kind, state, client_id AS "clientId", chain,
  underlying_symbol AS "underlyingSymbol", token_symbol AS "tokenSymbol", wallet, trim_scale(qty)::text AS qty, token_amount::text AS "tokenAmount",
  trim_scale(shares_multiplier)::text AS "sharesMultiplier", share_dust::text AS "shareDust", session_start::float8 AS "sessionStart",
  notional_usd::text AS "notionalUsd", tokenization_request_id AS "tokenizationRequestId", mint_request AS "mintRequest",
  redemption_id AS "redemptionId", confirm_status AS "confirmStatus", tx_hash AS "txHash", reason, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

export interface NewPartnerMint {
  issuerRequestId: string;
  clientId: string;
  chain: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  wallet: string;
  qty: string;
  sessionStart: number;
  notionalUsd: string;
  tokenizationRequestId: string;
  mintRequest: SignedMintRequest;
  /** The broker key its signature recovers to: one live mint per chain, signer and nonce. */
  brokerSigner: `0x${string}`;
}

/** The unique index a second live mint with a signer's nonce on one chain violates. */
export const BROKER_NONCE_INDEX = 'partner_requests_broker_nonce';

/**
 * Stores a mint `created`; a request id already stored answers the row there (`created: false`). A nonce of the same
 * signer on the same chain held by another live mint fails with a unique violation of BROKER_NONCE_INDEX.
 */
export async function insertPartnerMint(db: Queryable, mint: NewPartnerMint): Promise<{ created: boolean; request: PartnerRequestRecord }> {
  const { rows } = await db.query<PartnerRequestRecord>(
    `INSERT INTO partner_requests (issuer_request_id, kind, state, client_id, chain, underlying_symbol, token_symbol, wallet, qty,
       session_start, notional_usd, tokenization_request_id, mint_request, broker_signer)
     VALUES ($1, 'mint', 'created', $2, $3, $4, $5, lower($6), $7::numeric, $8, $9::numeric, $10, $11, lower($12))
     ON CONFLICT (tokenization_request_id) DO NOTHING
     RETURNING ${REQUEST_COLUMNS}`,
    [
      mint.issuerRequestId,
      mint.clientId,
      mint.chain,
      mint.underlyingSymbol,
      mint.tokenSymbol,
      mint.wallet,
      mint.qty,
      mint.sessionStart,
      mint.notionalUsd,
      mint.tokenizationRequestId,
      JSON.stringify(mint.mintRequest),
      mint.brokerSigner,
    ],
  );
  if (rows[0]) return { created: true, request: rows[0] };
  return { created: false, request: (await findPartnerRequestByTokenizationId(db, mint.tokenizationRequestId))! };
}

export interface NewPartnerRedemption {
  redemptionId: string;
  clientId: string | null;
  chain: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  wallet: string;
  tokenAmount: string;
  txHash: string;
}

/**
 * Opens a redemption (`pending`, or `needs_review` without a client) once, its chain record following — from the row the
 * chain watcher stored `awaiting_finality` while the burn was not final; a second call answers the row there.
 */
export async function insertPartnerRedemption(db: Queryable, redemption: NewPartnerRedemption): Promise<PartnerRequestRecord> {
  await db.query(
    `INSERT INTO partner_requests (issuer_request_id, kind, state, client_id, chain, underlying_symbol, token_symbol, wallet, token_amount,
       redemption_id, tx_hash, reason)
     VALUES ($1, 'redeem', $2, $3, $4, $5, $6, lower($7), $8::numeric, $1, $9, $10)
     ON CONFLICT (issuer_request_id) DO UPDATE SET state = EXCLUDED.state, client_id = EXCLUDED.client_id, reason = EXCLUDED.reason, updated_at = now()
      WHERE partner_requests.state = 'awaiting_finality'`,
    [
      redemption.redemptionId,
      redemption.clientId ? 'pending' : 'needs_review',
      redemption.clientId,
      redemption.chain,
      redemption.underlyingSymbol,
      redemption.tokenSymbol,
      redemption.wallet,
      redemption.tokenAmount,
      redemption.txHash,
      redemption.clientId ? null : `no client is linked to wallet ${redemption.wallet.toLowerCase()} on ${redemption.chain}`,
    ],
  );
  // The chain record follows the request's state as it is now, read in the same statement (an operator may have
  // rejected it since the insert).
  await db.query(
    `UPDATE redemptions r SET state = p.state, updated_at = now() FROM partner_requests p
      WHERE r.redemption_id = $1 AND p.issuer_request_id = $1 AND r.state <> p.state`,
    [redemption.redemptionId],
  );
  return (await findPartnerRequest(db, redemption.redemptionId))!;
}

export async function findPartnerRequest(db: Queryable, issuerRequestId: string, options: { forUpdate?: boolean } = {}): Promise<PartnerRequestRecord | undefined> {
  const { rows } = await db.query<PartnerRequestRecord>(
    `SELECT ${REQUEST_COLUMNS} FROM partner_requests WHERE issuer_request_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [issuerRequestId],
  );
  return rows[0];
}

export async function findPartnerRequestByTokenizationId(db: Queryable, tokenizationRequestId: string): Promise<PartnerRequestRecord | undefined> {
  const { rows } = await db.query<PartnerRequestRecord>(`SELECT ${REQUEST_COLUMNS} FROM partner_requests WHERE tokenization_request_id = $1`, [
    tokenizationRequestId,
  ]);
  return rows[0];
}

/**
 * The request any of its ids names: the issuer's request id, the broker's tokenization request id, its workflow id
 * (`partner-mint-<id>`, or a redemption's own id) or its mint or burn transaction hash.
 */
export async function findPartnerRequestByAnyId(db: Queryable, id: string): Promise<PartnerRequestRecord | undefined> {
  const { rows } = await db.query<PartnerRequestRecord>(
    `SELECT ${REQUEST_COLUMNS} FROM partner_requests
      WHERE issuer_request_id = $1 OR issuer_request_id = regexp_replace($1, '^partner-mint-', '') OR tokenization_request_id = $1 OR tx_hash = lower($1)
      ORDER BY (issuer_request_id = $1) DESC, created_at DESC LIMIT 1`,
    [id],
  );
  return rows[0];
}

/** What a step of a workflow changes on its request; columns left out stay as they are. */
export interface PartnerRequestUpdate {
  state?: PartnerRequestState;
  clientId?: string;
  qty?: string;
  tokenAmount?: string;
  sharesMultiplier?: string;
  shareDust?: string;
  sessionStart?: number;
  notionalUsd?: string;
  confirmStatus?: 'completed' | 'rejected';
  txHash?: string;
  reason?: string | null;
}

const UPDATE_COLUMNS: Record<keyof PartnerRequestUpdate, string> = {
  state: 'state',
  clientId: 'client_id',
  qty: 'qty',
  tokenAmount: 'token_amount',
  sharesMultiplier: 'shares_multiplier',
  shareDust: 'share_dust',
  sessionStart: 'session_start',
  notionalUsd: 'notional_usd',
  confirmStatus: 'confirm_status',
  txHash: 'tx_hash',
  reason: 'reason',
};

/**
 * Applies `update` when the request is in one of `from` (any state when omitted) — and, with `unconfirmed`, only while
 * no broker confirm is stored; with `unassigned`, only while no client is assigned — and answers the row afterwards,
 * changed or not, so a retried step finds the row it already wrote. A redemption's chain record follows its state.
 */
export async function updatePartnerRequest(
  db: Queryable,
  issuerRequestId: string,
  update: PartnerRequestUpdate,
  from?: readonly PartnerRequestState[],
  options: { unconfirmed?: boolean; unassigned?: boolean } = {},
): Promise<PartnerRequestRecord | undefined> {
  const entries = Object.entries(update).filter(([, value]) => value !== undefined) as [keyof PartnerRequestUpdate, unknown][];
  const assignments = entries.map(([field], index) => `${UPDATE_COLUMNS[field]} = $${index + 5}`);
  await db.query(
    `WITH changed AS (
       UPDATE partner_requests SET ${[...assignments, 'updated_at = now()'].join(', ')}
        WHERE issuer_request_id = $1 AND ($2::text[] IS NULL OR state = ANY($2)) AND (NOT $3 OR confirm_status IS NULL) AND (NOT $4 OR client_id IS NULL)
       RETURNING redemption_id, state
     )
     UPDATE redemptions r SET state = changed.state, updated_at = now() FROM changed WHERE r.redemption_id = changed.redemption_id`,
    [issuerRequestId, from ?? null, options.unconfirmed ?? false, options.unassigned ?? false, ...entries.map(([, value]) => value)],
  );
  return findPartnerRequest(db, issuerRequestId);
}

export interface PartnerRequestFilter {
  kind?: PartnerKind;
  /** The partner-facing status (`pending` covers every state short of completed or rejected), or a workflow state. */
  status?: string;
  clientId?: string;
  chain?: string;
  limit: number;
  /** Rows listed after this one (the last of the previous page). */
  after?: string;
}

/** Newest first. */
export async function listPartnerRequests(db: Queryable, filter: PartnerRequestFilter): Promise<PartnerRequestRecord[]> {
  const { rows } = await db.query<PartnerRequestRecord>(
    `SELECT ${REQUEST_COLUMNS} FROM partner_requests
      WHERE ($1::text IS NULL OR kind = $1)
        AND ($2::text IS NULL OR state = $2 OR ($2 = 'pending' AND state NOT IN ('completed', 'rejected', 'cancelled')))
        AND ($3::text IS NULL OR client_id = $3)
        AND ($4::text IS NULL OR chain = $4)
        AND ($5::text IS NULL OR (created_at, issuer_request_id) < (SELECT created_at, issuer_request_id FROM partner_requests WHERE issuer_request_id = $5))
      ORDER BY created_at DESC, issuer_request_id DESC
      LIMIT $6`,
    [filter.kind ?? null, filter.status ?? null, filter.clientId ?? null, filter.chain ?? null, filter.after ?? null, filter.limit],
  );
  return rows;
}

/** Mints stored whose workflow may never have started (the API process died between the insert and the start). */
export async function listUnfinishedPartnerMints(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT issuer_request_id AS id FROM partner_requests WHERE kind = 'mint' AND state NOT IN ('completed', 'rejected') ORDER BY created_at`,
  );
  return rows.map((row) => row.id);
}

/** Fixes a mint's token amount and the multiplier it was computed with, at the first attempt only (later ones keep it). */
export async function fixPartnerMintAmount(db: Queryable, issuerRequestId: string, mint: { tokenAmount: string; sharesMultiplier: string }): Promise<void> {
  await db.query(
    `UPDATE partner_requests SET token_amount = $2::numeric, shares_multiplier = $3::numeric, updated_at = now()
      WHERE issuer_request_id = $1 AND token_amount IS NULL`,
    [issuerRequestId, mint.tokenAmount, mint.sharesMultiplier],
  );
}

/**
 * Stores the broker's confirm of a mint still waiting for one (`created`, no confirm yet); a rejection stores its
 * reason. A request that timed out meanwhile, or was confirmed before, is left as it is: the caller reads it back.
 */
export async function storeBrokerConfirm(db: Queryable, issuerRequestId: string, confirm: { status: 'completed' | 'rejected'; reason: string }): Promise<void> {
  await db.query(
    `UPDATE partner_requests SET confirm_status = $2, reason = CASE WHEN $2 = 'rejected' THEN $3 ELSE reason END, updated_at = now()
      WHERE issuer_request_id = $1 AND confirm_status IS NULL AND state = 'created'`,
    [issuerRequestId, confirm.status, confirm.reason],
  );
}

/** Partner requests per kind and state, and the age (seconds) of the oldest one of each kind not yet final (completed or rejected). */
export async function partnerRequestGauges(db: Queryable): Promise<{ counts: { kind: string; state: string; count: number }[]; oldestOpen: { kind: string; ageSeconds: number }[] }> {
  const [counts, oldest] = await Promise.all([
    db.query<{ kind: string; state: string; count: number }>(`SELECT kind, state, count(*)::int AS count FROM partner_requests GROUP BY kind, state`),
    db.query<{ kind: string; age_seconds: number }>(
      `SELECT kind, extract(epoch FROM now() - min(created_at))::float8 AS age_seconds
         FROM partner_requests WHERE state NOT IN ('completed', 'rejected') GROUP BY kind`,
    ),
  ]);
  return { counts: counts.rows, oldestOpen: oldest.rows.map((row) => ({ kind: row.kind, ageSeconds: row.age_seconds })) };
}
