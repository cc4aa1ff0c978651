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
 * Each cap broken is reported once, at its first instant, with the attestations it counted.
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

/** Each (cap, instant) exceeded: the cap, its limit, the amount at the instant and the attestations counted. */
const EXCEEDED = `
  WITH counted AS (${COUNTED}),
  instants AS (
    SELECT n.attestation_id, n.account_id, n.symbol, n.session, n.session_started_at, n.created_at, l.max_attestation_count,
           l.max_active_notional_value, l.max_session_notional_value, open.count, open.notional AS open_notional, open.ids AS open_ids,
           session.notional AS session_notional, session.ids AS session_ids
      FROM counted n
      JOIN session_limits l ON l.symbol = n.symbol AND l.session = n.session
      CROSS JOIN LATERAL (
        SELECT count(*) AS count, sum(o.notional) AS notional, string_agg(o.attestation_id::text, ',' ORDER BY o.created_at, o.attestation_id) AS ids
          FROM counted o
         WHERE o.account_id = n.account_id AND o.symbol = n.symbol AND o.created_at <= n.created_at AND n.created_at < o.open_until) AS open
      CROSS JOIN LATERAL (
        SELECT sum(o.notional) AS notional, string_agg(o.attestation_id::text, ',' ORDER BY o.created_at, o.attestation_id) AS ids
          FROM counted o
         WHERE o.account_id = n.account_id AND o.symbol = n.symbol AND o.session_started_at = n.session_started_at
           AND o.created_at <= n.created_at AND (n.created_at < o.expires_at OR o.executed)) AS session
  ),
  offhours AS (
    SELECT n.attestation_id, n.symbol, n.session_started_at, n.created_at, total.notional AS global, total.ids AS global_ids,
           total.asset AS asset, total.asset_ids
      FROM counted n
      CROSS JOIN LATERAL (
        SELECT sum(o.notional) AS notional, string_agg(o.attestation_id::text, ',' ORDER BY o.created_at, o.attestation_id) AS ids,
               coalesce(sum(o.notional) FILTER (WHERE o.symbol = n.symbol), 0) AS asset,
               string_agg(o.attestation_id::text, ',' ORDER BY o.created_at, o.attestation_id) FILTER (WHERE o.symbol = n.symbol) AS asset_ids
          FROM counted o
         WHERE o.session = 'offhours' AND o.session_started_at = n.session_started_at
           AND o.created_at <= n.created_at AND (n.created_at < o.expires_at OR o.executed)) AS total
     WHERE n.session = 'offhours'
  ),
  exceeded AS (
    SELECT 'max_attestation_count' AS cap, account_id AS scope, symbol, created_at, attestation_id, max_attestation_count::numeric AS "limit", count AS amount, open_ids AS ids
      FROM instants WHERE count > max_attestation_count
    UNION ALL
    SELECT 'max_active_notional_value', account_id, symbol, created_at, attestation_id, max_active_notional_value, open_notional, open_ids
      FROM instants WHERE open_notional > max_active_notional_value
    UNION ALL
    SELECT 'max_session_notional_value', account_id || ' session ' || session_started_at, symbol, created_at, attestation_id,
           max_session_notional_value, session_notional, session_ids
      FROM instants WHERE session_notional > max_session_notional_value
    UNION ALL
    SELECT 'OFFHOURS_GLOBAL_EXPOSURE_LIMIT', 'offhours session ' || session_started_at, '*', created_at, attestation_id, $1::numeric, global, global_ids
      FROM offhours WHERE global > $1::numeric
    UNION ALL
    SELECT 'OFFHOURS_ASSET_EXPOSURE_LIMIT', 'offhours session ' || session_started_at, symbol, created_at, attestation_id, $2::numeric, asset, asset_ids
      FROM offhours WHERE asset > $2::numeric
  )
  SELECT DISTINCT ON (cap, scope, symbol) cap, scope, symbol, ${ISO('created_at')} AS instant, attestation_id::text AS "attestationId",
         trim_scale("limit")::text AS "limit", trim_scale(amount)::text AS amount, ids AS "counted"
    FROM exceeded ORDER BY cap, scope, symbol, created_at, attestation_id`;

/** (4) Every cap exceeded at some instant, first instant only, per cap and account (or off-hours session) and asset. */
export async function checkLimits(db: Queryable, caps: LimitCaps): Promise<Violation[]> {
  const { rows } = await db.query<Record<string, string>>(EXCEEDED, [caps.offhoursGlobalExposure, caps.offhoursAssetExposure]);
  return rows.map((records) => ({ invariant: '4 limits', rule: `exposure above ${records.cap}`, records }));
}
