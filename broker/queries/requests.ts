/**
 * Tokenization requests (mint and redeem records) as participants see them, and the processing state the
 * sandbox keeps beside each: the next step, when it is due, and a lease so that one worker holds it at a time.
 */
import type { Pool } from 'pg';
import { Decimal } from '../../domain/money';
import type { Network } from '../fields';

type Queryable = Pick<Pool, 'query'>;

export type RequestType = 'mint' | 'redeem';
export type RequestStatus = 'pending' | 'completed' | 'rejected';
export type ProcessingStep = 'submit' | 'journal' | 'confirm' | 'done';

export interface TokenizationRequest {
  tokenizationRequestId: string;
  accountId: string;
  type: RequestType;
  status: RequestStatus;
  transferStatus: RequestStatus;
  underlyingSymbol: string;
  tokenSymbol: string;
  qty: string;
  issuer: string;
  network: Network;
  walletAddress: string;
  issuerRequestId: string | null;
  clientRequestId: string | null;
  txHash: string | null;
  fees: string;
  reason: string | null;
  nonce: string | null;
  createdEpoch: number | null;
  brokerSignature: string | null;
  submission: string | null;
  step: ProcessingStep;
  confirmStatus: 'completed' | 'rejected' | null;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface RequestRow {
  tokenization_request_id: string;
  account_id: string;
  type: RequestType;
  status: RequestStatus;
  transfer_status: RequestStatus;
  underlying_symbol: string;
  token_symbol: string;
  qty: string;
  issuer: string;
  network: Network;
  wallet_address: string;
  issuer_request_id: string | null;
  client_request_id: string | null;
  tx_hash: string | null;
  fees: string;
  reason: string | null;
  nonce: string | null;
  created_epoch: string | number | null;
  broker_signature: string | null;
  submission: string | null;
  step: ProcessingStep;
  confirm_status: 'completed' | 'rejected' | null;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
}

function toRequest(row: RequestRow): TokenizationRequest {
  return {
    tokenizationRequestId: row.tokenization_request_id,
    accountId: row.account_id,
    type: row.type,
    status: row.status,
    transferStatus: row.transfer_status,
    underlyingSymbol: row.underlying_symbol,
    tokenSymbol: row.token_symbol,
    qty: new Decimal(row.qty).toFixed(),
    issuer: row.issuer,
    network: row.network,
    walletAddress: row.wallet_address,
    issuerRequestId: row.issuer_request_id,
    clientRequestId: row.client_request_id,
    txHash: row.tx_hash,
    fees: new Decimal(row.fees).toFixed(),
    reason: row.reason,
    nonce: row.nonce,
    createdEpoch: row.created_epoch === null ? null : Number(row.created_epoch),
    brokerSignature: row.broker_signature,
    submission: row.submission,
    step: row.step,
    confirmStatus: row.confirm_status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The record as the sandbox's endpoints answer it (the partner network's field names). */
export interface RequestView {
  tokenization_request_id: string;
  type: RequestType;
  status: RequestStatus;
  transfer_status: RequestStatus;
  underlying_symbol: string;
  token_symbol: string;
  qty: string;
  issuer: string;
  network: Network;
  wallet_address: string;
  issuer_request_id: string | null;
  client_request_id: string | null;
  tx_hash: string | null;
  fees: string;
  reason: string | null;
  created_at: string;
  updated_at: string;
}

export function requestView(request: TokenizationRequest): RequestView {
  return {
    tokenization_request_id: request.tokenizationRequestId,
    type: request.type,
    status: request.status,
    transfer_status: request.transferStatus,
    underlying_symbol: request.underlyingSymbol,
    token_symbol: request.tokenSymbol,
    qty: request.qty,
    issuer: request.issuer,
    network: request.network,
    wallet_address: request.walletAddress,
    issuer_request_id: request.issuerRequestId,
    client_request_id: request.clientRequestId,
    tx_hash: request.txHash,
    fees: request.fees,
    reason: request.reason,
    created_at: request.createdAt.toISOString(),
    updated_at: request.updatedAt.toISOString(),
  };
}

export interface NewMintRequest {
  tokenizationRequestId: string;
  accountId: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  qty: string;
  issuer: string;
  network: Network;
  walletAddress: string;
  clientRequestId: string | null;
  nonce: string;
  createdEpoch: number;
  brokerSignature: string;
  submission: string;
}

export async function insertMintRequest(db: Queryable, request: NewMintRequest): Promise<TokenizationRequest> {
  const { rows } = await db.query<RequestRow>(
    `INSERT INTO broker.tokenization_requests
       (tokenization_request_id, account_id, type, status, transfer_status, underlying_symbol, token_symbol, qty, issuer,
        network, wallet_address, client_request_id, nonce, created_epoch, broker_signature, submission, step)
     VALUES ($1, $2, 'mint', 'pending', 'pending', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'submit')
     RETURNING *`,
    [
      request.tokenizationRequestId,
      request.accountId,
      request.underlyingSymbol,
      request.tokenSymbol,
      request.qty,
      request.issuer,
      request.network,
      request.walletAddress,
      request.clientRequestId,
      request.nonce,
      request.createdEpoch,
      request.brokerSignature,
      request.submission,
    ],
  );
  return toRequest(rows[0]!);
}

export interface NewRedeemRequest {
  tokenizationRequestId: string;
  accountId: string;
  underlyingSymbol: string;
  tokenSymbol: string;
  qty: string;
  issuer: string;
  network: Network;
  walletAddress: string;
  issuerRequestId: string;
  txHash: string;
}

/** Inserts the redeem record unless one exists for the issuer request id; `created` says which. */
export async function insertRedeemRequest(db: Queryable, request: NewRedeemRequest): Promise<{ created: boolean; request: TokenizationRequest }> {
  const { rows } = await db.query<RequestRow>(
    `INSERT INTO broker.tokenization_requests
       (tokenization_request_id, account_id, type, status, transfer_status, underlying_symbol, token_symbol, qty, issuer,
        network, wallet_address, issuer_request_id, tx_hash, step)
     VALUES ($1, $2, 'redeem', 'pending', 'pending', $3, $4, $5, $6, $7, $8, $9, $10, 'journal')
     ON CONFLICT (issuer_request_id) WHERE type = 'redeem' DO NOTHING
     RETURNING *`,
    [
      request.tokenizationRequestId,
      request.accountId,
      request.underlyingSymbol,
      request.tokenSymbol,
      request.qty,
      request.issuer,
      request.network,
      request.walletAddress,
      request.issuerRequestId,
      request.txHash,
    ],
  );
  if (rows[0]) return { created: true, request: toRequest(rows[0]) };
  const existing = await findRedeemByIssuerRequestId(db, request.issuerRequestId);
  if (!existing) throw new Error(`redeem record for ${request.issuerRequestId} vanished`);
  return { created: false, request: existing };
}

export async function findRequest(db: Queryable, tokenizationRequestId: string, options: { forUpdate?: boolean } = {}): Promise<TokenizationRequest | undefined> {
  const { rows } = await db.query<RequestRow>(
    `SELECT * FROM broker.tokenization_requests WHERE tokenization_request_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenizationRequestId],
  );
  return rows[0] && toRequest(rows[0]);
}

export async function findRedeemByIssuerRequestId(db: Queryable, issuerRequestId: string): Promise<TokenizationRequest | undefined> {
  const { rows } = await db.query<RequestRow>(
    `SELECT * FROM broker.tokenization_requests WHERE type = 'redeem' AND issuer_request_id = $1`,
    [issuerRequestId],
  );
  return rows[0] && toRequest(rows[0]);
}

export interface RequestFilter {
  /** One participant's records; undefined: every participant's (the issuer's view). */
  accountId: string | undefined;
  status?: RequestStatus;
  type?: RequestType;
  issuerRequestId?: string;
  limit: number;
}

/** Records, newest first. */
export async function listRequests(db: Queryable, filter: RequestFilter): Promise<TokenizationRequest[]> {
  const { rows } = await db.query<RequestRow>(
    `SELECT * FROM broker.tokenization_requests
      WHERE ($1::uuid IS NULL OR account_id = $1)
        AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR type = $3)
        AND ($4::text IS NULL OR issuer_request_id = $4)
      ORDER BY created_at DESC, tokenization_request_id DESC
      LIMIT $5`,
    [filter.accountId ?? null, filter.status ?? null, filter.type ?? null, filter.issuerRequestId ?? null, filter.limit],
  );
  return rows.map(toRequest);
}

/** Marks a mint `completed` with the issuer's transaction hash (only a pending mint whose shares were journalled). */
export async function completeMint(db: Queryable, tokenizationRequestId: string, txHash: string): Promise<TokenizationRequest | undefined> {
  const { rows } = await db.query<RequestRow>(
    `UPDATE broker.tokenization_requests SET status = 'completed', tx_hash = $2, updated_at = clock_timestamp()
      WHERE tokenization_request_id = $1 AND type = 'mint' AND status = 'pending' AND transfer_status = 'completed'
      RETURNING *`,
    [tokenizationRequestId, txHash],
  );
  return rows[0] && toRequest(rows[0]);
}

/**
 * Takes up to `limit` requests whose next step is due and not held by a live lease, and holds them for `leaseMs`.
 * Work left by a process that died is taken again once its lease runs out.
 */
export async function claimDueRequests(db: Queryable, owner: string, leaseMs: number, limit: number): Promise<TokenizationRequest[]> {
  const { rows } = await db.query<RequestRow>(
    `UPDATE broker.tokenization_requests SET lease_owner = $1, lease_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000)
      WHERE tokenization_request_id IN (
        SELECT tokenization_request_id FROM broker.tokenization_requests
         WHERE step <> 'done' AND next_attempt_at <= clock_timestamp() AND (lease_until IS NULL OR lease_until < clock_timestamp())
         ORDER BY next_attempt_at, created_at
         LIMIT $3
         FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [owner, leaseMs, limit],
  );
  return rows.map(toRequest);
}

/** Lets go of every request this owner holds (an orderly stop). */
export async function releaseLeases(db: Queryable, owner: string): Promise<void> {
  await db.query('UPDATE broker.tokenization_requests SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1', [owner]);
}

/** When the earliest unheld step is due, if any (for the processor's next wake-up). */
export async function nextDueAt(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ due: Date | null }>(
    `SELECT min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) AS due FROM broker.tokenization_requests WHERE step <> 'done'`,
  );
  return rows[0]?.due ?? undefined;
}

export interface StepUpdate {
  step?: ProcessingStep;
  status?: RequestStatus;
  transferStatus?: RequestStatus;
  confirmStatus?: 'completed' | 'rejected';
  issuerRequestId?: string;
  reason?: string;
  /**
   * Schedules a retry: the attempt count grows and the step is due again this many milliseconds from now — by the
   * database's clock, the one that judges what is due.
   */
  retryInMs?: number;
  lastError?: string | null;
}

/** Records the outcome of a step and releases the lease (only while `owner` holds it). */
export async function recordStep(db: Queryable, tokenizationRequestId: string, owner: string, update: StepUpdate): Promise<void> {
  await db.query(
    `UPDATE broker.tokenization_requests SET
        step = coalesce($3, step),
        status = coalesce($4, status),
        transfer_status = coalesce($5, transfer_status),
        confirm_status = coalesce($6, confirm_status),
        issuer_request_id = coalesce($7, issuer_request_id),
        reason = coalesce($8, reason),
        attempts = CASE WHEN $9::float8 IS NULL THEN 0 ELSE attempts + 1 END,
        next_attempt_at = clock_timestamp() + make_interval(secs => coalesce($9::float8, 0) / 1000),
        last_error = $10,
        lease_owner = NULL, lease_until = NULL,
        updated_at = CASE WHEN $4::text IS NULL AND $5::text IS NULL AND $7::text IS NULL THEN updated_at ELSE clock_timestamp() END
      WHERE tokenization_request_id = $1 AND lease_owner = $2`,
    [
      tokenizationRequestId,
      owner,
      update.step ?? null,
      update.status ?? null,
      update.transferStatus ?? null,
      update.confirmStatus ?? null,
      update.issuerRequestId ?? null,
      update.reason ?? null,
      update.retryInMs ?? null,
      update.lastError ?? null,
    ],
  );
}
