/**
 * The operator console's sessions and its audit (`console_sessions`, `console_audit`). A session is found by the
 * SHA-256 of the random id its cookie holds; an ended or expired one is never found.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../pool';
import { findApiKeyById, type ApiKey } from './api-keys';
import { userUsage } from './attestations';
import { currentAssetEventsSql } from './operator-controls';

export interface ConsoleSession {
  key: ApiKey;
  csrfToken: string;
  expiresAt: Date;
}

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

export async function createConsoleSession(db: Queryable, session: { sessionId: string; keyId: string; csrfToken: string; ttlMs: number }): Promise<void> {
  await db.query(
    `INSERT INTO console_sessions (id_hash, key_id, csrf_token, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
    [hashOf(session.sessionId), session.keyId, session.csrfToken, session.ttlMs],
  );
  // Expired sessions are of no use to anyone: dropped as new ones open.
  await db.query(`DELETE FROM console_sessions WHERE expires_at < now() - interval '1 day'`);
}

/** The live session of `sessionId` with its key (a key revoked since ends it too). */
export async function findConsoleSession(db: Queryable, sessionId: string): Promise<ConsoleSession | undefined> {
  const { rows } = await db.query<{ key_id: string; csrf_token: string; expires_at: Date }>(
    `SELECT key_id, csrf_token, expires_at FROM console_sessions WHERE id_hash = $1 AND ended_at IS NULL AND expires_at > now()`,
    [hashOf(sessionId)],
  );
  const row = rows[0];
  if (!row) return undefined;
  const key = await findApiKeyById(db, row.key_id);
  if (!key || key.revokedAt || key.scope !== 'admin') return undefined;
  return { key, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

export async function endConsoleSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query(`UPDATE console_sessions SET ended_at = now() WHERE id_hash = $1 AND ended_at IS NULL`, [hashOf(sessionId)]);
}

export interface AuditEntry {
  id: string;
  at: Date;
  keyId: string;
  keyName: string;
  action: string;
  target: string;
  reason: string | null;
  outcome: 'done' | 'refused' | 'failed';
  detail: string | null;
}

/** Records an action's outcome; answers the entry's id. */
export async function recordAudit(db: Queryable, entry: Omit<AuditEntry, 'id' | 'at'>): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO console_audit (key_id, key_name, action, target, reason, outcome, detail) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
    [entry.keyId, entry.keyName, entry.action, entry.target, entry.reason, entry.outcome, entry.detail],
  );
  return rows[0]!.id;
}

/** One entry, only if the key `keyId` recorded it (what an operator may be shown of the audit as a notice). */
export async function findOwnAuditEntry(db: Queryable, id: string, keyId: string): Promise<AuditEntry | undefined> {
  const { rows } = await db.query<AuditEntry>(
    `SELECT id::text, at, key_id AS "keyId", key_name AS "keyName", action, target, reason, outcome, detail FROM console_audit
      WHERE id = $1::bigint AND key_id = $2`,
    [id, keyId],
  );
  return rows[0];
}

/** Newest first; only those on `target` when given. */
export async function listAudit(db: Queryable, filter: { target?: string; limit: number; before?: string }): Promise<AuditEntry[]> {
  const { rows } = await db.query<AuditEntry>(
    `SELECT id::text, at, key_id AS "keyId", key_name AS "keyName", action, target, reason, outcome, detail FROM console_audit
      WHERE ($1::text IS NULL OR target = $1) AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [filter.target ?? null, filter.before ?? null, filter.limit],
  );
  return rows;
}

/*
 * What the console's pages read across tables (each page one or two queries; rows as the tables hold them).
 */

export interface OverviewCounts {
  attestations: { outstanding: number; executing: number; executedToday: number };
  partnerStates: { kind: string; state: string; n: number }[];
  rejectedToday: number;
}

/** Counts for the overview: attestations outstanding, executing, executed today (UTC); partner requests by kind and state. */
export async function overviewCounts(db: Queryable, now: number): Promise<OverviewCounts> {
  const dayStart = new Date(now);
  dayStart.setUTCHours(0, 0, 0, 0);
  const [attestations, partner, rejected] = await Promise.all([
    db.query<{ outstanding: number; executing: number; executed_today: number }>(
      `SELECT count(*) FILTER (WHERE a.state = 'outstanding' AND a.expires_at > $1 AND NOT EXISTS (SELECT 1 FROM trade_executions t WHERE t.attestation_id = a.attestation_id AND t.status = 'seen'))::int AS outstanding,
              count(*) FILTER (WHERE a.state = 'outstanding' AND EXISTS (SELECT 1 FROM trade_executions t WHERE t.attestation_id = a.attestation_id AND t.status = 'seen'))::int AS executing,
              count(*) FILTER (WHERE a.state = 'executed' AND a.state_changed_at >= $2)::int AS executed_today
         FROM attestations a WHERE a.state = 'outstanding' OR a.state_changed_at >= $2`,
      [now, dayStart.getTime()],
    ),
    db.query<{ kind: string; state: string; n: number }>(`SELECT kind, state, count(*)::int AS n FROM partner_requests GROUP BY kind, state ORDER BY kind, state`),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM partner_requests WHERE state = 'rejected' AND updated_at >= $1`, [dayStart]),
  ]);
  const row = attestations.rows[0]!;
  return {
    attestations: { outstanding: row.outstanding, executing: row.executing, executedToday: row.executed_today },
    partnerStates: partner.rows,
    rejectedToday: rejected.rows[0]!.n,
  };
}

export interface AttentionRequest {
  issuerRequestId: string;
  kind: string;
  state: string;
  reason: string | null;
  updatedAt: Date;
  why: string;
}

/**
 * Partner requests a person should look at first: held for review, held by a pause (the market, or an `ASSET_PAUSED`
 * event of the request's token in force: a confirmed mint or a pending redemption then waits, see
 * `partnerSettlementHold`), waiting for the broker's confirm longer than `confirmWaitMs`, or rejected today.
 */
export async function requestsNeedingAttention(db: Queryable, options: { now: number; confirmWaitMs: number; limit: number }): Promise<AttentionRequest[]> {
  const dayStart = new Date(options.now);
  dayStart.setUTCHours(0, 0, 0, 0);
  const { rows } = await db.query<AttentionRequest>(
    `SELECT issuer_request_id AS "issuerRequestId", kind, state, reason, updated_at AS "updatedAt",
            CASE WHEN state = 'needs_review' THEN 'needs review'
                 WHEN state IN ('confirmed', 'pending') THEN 'held by a pause'
                 WHEN state = 'created' THEN 'waiting for the broker''s confirm'
                 WHEN state = 'rejected' THEN 'rejected today' ELSE state END AS why
       FROM partner_requests r
      WHERE state = 'needs_review'
         OR (state IN ('confirmed', 'pending')
             AND ((SELECT paused FROM market_state)
                  OR EXISTS (SELECT 1 FROM ${currentAssetEventsSql('$4')} AS e
                              WHERE e.symbol = r.token_symbol AND e.code = 'ASSET_PAUSED' AND e.starts_at <= $4)))
         OR (state = 'created' AND updated_at < $1)
         OR (state = 'rejected' AND updated_at >= $2)
      ORDER BY (state = 'needs_review') DESC, (state IN ('confirmed', 'pending')) DESC, (state = 'created') DESC, updated_at DESC
      LIMIT $3`,
    [new Date(options.now - options.confirmWaitMs), dayStart, options.limit, options.now],
  );
  return rows;
}

export interface WatcherRow {
  chain: string;
  /** Its workflow: `chain-watcher-<bare chain id>` for an EVM chain, `chain-watcher-solana-900` for Solana. */
  workflowId: string;
  nextBlock: number | null;
  seenHead: number | null;
  seenHeadAt: Date | null;
  finalBlock: number | null;
  status: string | null;
  lastError: unknown;
  lastErrorAt: Date | null;
}

/** The watcher of every deployed chain (started or not), and of Solana once its watcher has a cursor. */
export async function chainWatchers(db: Queryable): Promise<WatcherRow[]> {
  const { rows } = await db.query<WatcherRow>(
    `SELECT coalesce(d.chain, c.chain) AS chain, 'chain-watcher-' || coalesce(d.chain_id::text, c.chain) AS "workflowId", c.next_block::float8 AS "nextBlock",
            c.seen_head::float8 AS "seenHead", c.seen_head_at AS "seenHeadAt", c.final_block::float8 AS "finalBlock", c.status, c.last_error AS "lastError",
            c.last_error_at AS "lastErrorAt"
       FROM chain_deployments d FULL JOIN chain_cursors c ON c.chain = d.chain ORDER BY 1`,
  );
  return rows;
}

/** Every column of a row but bulky ones, as JSON (the console shows them as they are). */
type Row = Record<string, unknown>;

export async function chainDeploymentRows(db: Queryable): Promise<Row[]> {
  return (await db.query<{ row: Row }>(`SELECT to_jsonb(d) AS row FROM chain_deployments d ORDER BY chain`)).rows.map((r) => r.row);
}

/** The issuer's transactions, newest first, paged by `before` (a created_at/key pair is unique enough: key). */
export async function chainTransactionRows(db: Queryable, filter: { keyPrefix?: string; txHash?: string; limit: number; offset: number }): Promise<Row[]> {
  const { rows } = await db.query<{ row: Row }>(
    `SELECT to_jsonb(t) - 'raw' AS row FROM chain_transactions t
      WHERE ($1::text IS NULL OR t.key LIKE $1 || '%') AND ($2::text IS NULL OR t.tx_hash = lower($2))
      ORDER BY t.created_at DESC, t.key LIMIT $3 OFFSET $4`,
    [filter.keyPrefix ?? null, filter.txHash ?? null, filter.limit, filter.offset],
  );
  return rows.map((r) => r.row);
}

export async function walletRows(db: Queryable, limit: number): Promise<Row[]> {
  return (await db.query<{ row: Row }>(`SELECT to_jsonb(w) AS row FROM account_wallets w ORDER BY updated_at DESC LIMIT $1`, [limit])).rows.map((r) => r.row);
}

export async function redemptionRows(db: Queryable, filter: { limit: number; offset: number }): Promise<Row[]> {
  const { rows } = await db.query<{ row: Row }>(
    `SELECT to_jsonb(r) || jsonb_build_object('partner_state', p.state, 'client_id', p.client_id, 'qty', p.qty::text) AS row
       FROM redemptions r LEFT JOIN partner_requests p ON p.redemption_id = r.redemption_id
      ORDER BY r.created_at DESC, r.redemption_id LIMIT $1 OFFSET $2`,
    [filter.limit, filter.offset],
  );
  return rows.map((r) => r.row);
}

/** An attestation as stored (without the signed response), with its executions seen on chain. */
export async function attestationRow(db: Queryable, attestationId: string): Promise<{ attestation: Row; executions: Row[] } | undefined> {
  if (!/^\d{1,39}$/.test(attestationId)) return undefined;
  const found = await db.query<{ row: Row }>(`SELECT to_jsonb(a) - 'response' - 'signature' AS row FROM attestations a WHERE attestation_id = $1::numeric`, [attestationId]);
  if (!found.rows[0]) return undefined;
  const executions = await db.query<{ row: Row }>(`SELECT to_jsonb(t) AS row FROM trade_executions t WHERE attestation_id = $1::numeric ORDER BY block_number`, [attestationId]);
  return { attestation: found.rows[0].row, executions: executions.rows.map((r) => r.row) };
}

/**
 * What the account of an attestation uses of its asset's limits in the attestation's session, as the limits count it
 * (`userUsage`), beside the session's limits.
 */
export async function attestationLimitUsage(db: Queryable, attestation: { account_id: string; symbol: string; session: string; session_started_at: number }, now: number): Promise<Row> {
  const [usage, limits] = await Promise.all([
    userUsage(db, { accountId: attestation.account_id, symbol: attestation.symbol, now, sessionStartedAt: Number(attestation.session_started_at) }),
    db.query<{ row: Row }>(`SELECT to_jsonb(l) AS row FROM session_limits l WHERE l.symbol = $1 AND l.session = $2`, [attestation.symbol, attestation.session]),
  ]);
  return { ...usage, limits: limits.rows[0]?.row ?? null };
}
