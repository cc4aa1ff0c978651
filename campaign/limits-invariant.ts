/**
 * Invariant 4, limits: recomputed from the stored attestations, never from the usage ledgers that enforce them
 * (account_open_usage, account_session_usage, offhours_exposure). Exposure only rises when an attestation is created,
 * so the instants checked are every attestation's `created_at`; at each, with the caps of `session_limits` for the
 * new attestation's asset and session (the caps in force now: an operator who lowered one mid-run is not modelled):
 * - open: the account's attestations of the asset, any session, created at or before the instant and still open —
 *   before their expiry and, once executed, before their execution's block time. At most `max_attestation_count`
 *   of them, and at most `max_active_notional_value` of notional;
 * - session: the account's notional of the asset in the same session (`session_started_at`) created at or before the
 *   instant, counting those before their expiry and every executed one: at most `max_session_notional_value`;
 * - off-hours: every account's notional in the same off-hours session counted the same way, over all assets and per
 *   asset: at most OFFHOURS_GLOBAL_EXPOSURE_LIMIT and OFFHOURS_ASSET_EXPOSURE_LIMIT.
 * Each cap broken is reported once, at its first instant, with the attestations it counted. Computed by a sweep over
 * the creations and the ends of counting (below), so a campaign's tens of thousands of attestations take a second.
 */
import type { Queryable } from '../db/pool';
import type { Violation } from './invariants';

export interface LimitCaps {
  /** OFFHOURS_GLOBAL_EXPOSURE_LIMIT, USD */
  offhoursGlobalExposure: string;
  /** OFFHOURS_ASSET_EXPOSURE_LIMIT, USD */
  offhoursAssetExposure: string;
}

/** Open until its expiry, or its execution's block time when it executed sooner. */
const COUNTED = `SELECT attestation_id, account_id, symbol, session, session_started_at, created_at, expires_at, notional,
                        state = 'executed' AS executed,
                        CASE WHEN state = 'executed' THEN least(expires_at, state_changed_at) ELSE expires_at END AS open_until
                   FROM attestations`;

const ISO = (ms: string) => `to_char(to_timestamp(${ms} / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Each cap's first instant exceeded, by a sweep: every attestation adds its count and notional when created and takes
 * them back when it stops counting (its `open_until` for the open caps, its expiry unless executed for the session
 * and off-hours sums); the running sums read at each creation — removals at that very instant first, every creation
 * at it included — are the exposure at that instant. Then the attestations counted at each first instant, by name.
 */
const EXCEEDED = `
  WITH counted AS (${COUNTED}),
  events AS (
    SELECT attestation_id, account_id, symbol, session, session_started_at, created_at AS at, 1 AS phase,
           1 AS count, notional AS open, notional AS in_session FROM counted
    UNION ALL
    SELECT attestation_id, account_id, symbol, session, session_started_at, open_until, 0, -1, -notional, 0 FROM counted
    UNION ALL
    SELECT attestation_id, account_id, symbol, session, session_started_at, expires_at, 0, 0, 0, -notional FROM counted WHERE NOT executed
  ),
  instants AS (
    SELECT * FROM (
      SELECT e.*, sum(count) OVER open AS open_count, sum(open) OVER open AS open_notional,
             sum(in_session) OVER (PARTITION BY account_id, symbol, session_started_at ORDER BY at, phase) AS session_notional
        FROM events e WINDOW open AS (PARTITION BY account_id, symbol ORDER BY at, phase)) AS sums
     WHERE phase = 1
  ),
  offhours AS (
    SELECT * FROM (
      SELECT e.*, sum(in_session) OVER (PARTITION BY session_started_at ORDER BY at, phase) AS global,
             sum(in_session) OVER (PARTITION BY session_started_at, symbol ORDER BY at, phase) AS asset
        FROM events e WHERE session = 'offhours') AS sums
     WHERE phase = 1
  ),
  exceeded AS (
    SELECT 'max_attestation_count' AS cap, i.account_id, i.symbol, i.session_started_at, i.at AS created_at, i.attestation_id,
           l.max_attestation_count::numeric AS "limit", i.open_count AS amount
      FROM instants i JOIN session_limits l USING (symbol, session) WHERE i.open_count > l.max_attestation_count
    UNION ALL
    SELECT 'max_active_notional_value', i.account_id, i.symbol, i.session_started_at, i.at, i.attestation_id, l.max_active_notional_value, i.open_notional
      FROM instants i JOIN session_limits l USING (symbol, session) WHERE i.open_notional > l.max_active_notional_value
    UNION ALL
    SELECT 'max_session_notional_value', i.account_id, i.symbol, i.session_started_at, i.at, i.attestation_id, l.max_session_notional_value, i.session_notional
      FROM instants i JOIN session_limits l USING (symbol, session) WHERE i.session_notional > l.max_session_notional_value
    UNION ALL
    SELECT 'OFFHOURS_GLOBAL_EXPOSURE_LIMIT', NULL, '*', session_started_at, at, attestation_id, $1::numeric, global FROM offhours WHERE global > $1::numeric
    UNION ALL
    SELECT 'OFFHOURS_ASSET_EXPOSURE_LIMIT', NULL, symbol, session_started_at, at, attestation_id, $2::numeric, asset FROM offhours WHERE asset > $2::numeric
  ),
  first AS (
    SELECT DISTINCT ON (cap, account_id, symbol, scoped) *
      FROM (SELECT x.*, CASE WHEN cap IN ('max_attestation_count', 'max_active_notional_value') THEN NULL ELSE session_started_at END AS scoped FROM exceeded x) AS scoped
     ORDER BY cap, account_id, symbol, scoped, created_at, attestation_id
  )
  SELECT f.cap,
         CASE WHEN f.account_id IS NULL THEN 'offhours session ' || f.session_started_at
              WHEN f.scoped IS NULL THEN f.account_id ELSE f.account_id || ' session ' || f.session_started_at END AS scope,
         f.symbol, ${ISO('f.created_at')} AS instant, f.attestation_id::text AS "attestationId",
         trim_scale(f."limit")::text AS "limit", trim_scale(f.amount)::text AS amount, ids.counted
    FROM first f
    CROSS JOIN LATERAL (
      SELECT string_agg(o.attestation_id::text, ',' ORDER BY o.created_at, o.attestation_id) AS counted
        FROM counted o
       WHERE o.created_at <= f.created_at AND CASE
               WHEN f.scoped IS NULL THEN o.account_id = f.account_id AND o.symbol = f.symbol AND f.created_at < o.open_until
               WHEN f.account_id IS NOT NULL THEN o.account_id = f.account_id AND o.symbol = f.symbol AND o.session_started_at = f.session_started_at
                                                  AND (f.created_at < o.expires_at OR o.executed)
               ELSE o.session = 'offhours' AND o.session_started_at = f.session_started_at AND (f.symbol = '*' OR o.symbol = f.symbol)
                    AND (f.created_at < o.expires_at OR o.executed) END) AS ids
   ORDER BY f.cap, scope, f.symbol`;

/** (4) Every cap exceeded at some instant, first instant only, per cap and account (or off-hours session) and asset. */
export async function checkLimits(db: Queryable, caps: LimitCaps): Promise<Violation[]> {
  const { rows } = await db.query<Record<string, string>>(EXCEEDED, [caps.offhoursGlobalExposure, caps.offhoursAssetExposure]);
  return rows.map((records) => ({ invariant: '4 limits', rule: `exposure above ${records.cap}`, records }));
}
