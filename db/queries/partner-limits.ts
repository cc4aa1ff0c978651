/**
 * The partner flow's session limits (`partner_session_limits`): USD per underlying, session and direction, and what
 * the requests of a session already count against them, measured under a lock per underlying and direction.
 */
import type { Queryable } from '../pool';
import type { PartnerKind } from './partner-requests';

/** The USD limit of `kind` for the underlying in `session`; undefined when the underlying is not offered. */
export async function findPartnerSessionLimit(db: Queryable, underlying: string, session: string, kind: PartnerKind): Promise<string | undefined> {
  const { rows } = await db.query<{ limit: string }>(
    `SELECT limit_usd::text AS "limit" FROM partner_session_limits WHERE underlying = $1 AND session = $2 AND kind = $3`,
    [underlying, session, kind],
  );
  return rows[0]?.limit;
}

/** The underlyings the flow offers (those with limits). */
export async function listPartnerUnderlyings(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ underlying: string }>(`SELECT DISTINCT underlying FROM partner_session_limits ORDER BY underlying`);
  return rows.map((row) => row.underlying);
}

/** USD notional already counted against the session (started at `sessionStart`) for the underlying and direction. */
export async function partnerSessionUsage(db: Queryable, kind: PartnerKind, underlying: string, sessionStart: number): Promise<string> {
  const { rows } = await db.query<{ used: string }>(
    `SELECT coalesce(sum(notional_usd), 0)::text AS used FROM partner_requests
      WHERE kind = $1 AND underlying_symbol = $2 AND session_start = $3 AND state <> 'rejected'`,
    [kind, underlying, sessionStart],
  );
  return rows[0]!.used;
}

/** Serialises limit checks of one underlying and direction until the transaction ends. */
export async function lockPartnerLimit(db: Queryable, kind: PartnerKind, underlying: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`partner-limit:${kind}:${underlying}`]);
}

/** The largest USD limit of `kind` for the underlying over every session (null when it has none). */
export async function largestPartnerSessionLimit(db: Queryable, underlying: string, kind: PartnerKind): Promise<string | null> {
  const { rows } = await db.query<{ max: string | null }>(`SELECT max(limit_usd)::text AS max FROM partner_session_limits WHERE underlying = $1 AND kind = $2`, [
    underlying,
    kind,
  ]);
  return rows[0]!.max;
}
