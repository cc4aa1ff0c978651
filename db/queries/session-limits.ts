/** Static per-user maximums per asset and session, editable by an operator. */
import type { Queryable } from '../pool';

export type LimitSession = 'premarket' | 'regular' | 'postmarket' | 'overnight' | 'offhours';

export interface SessionLimitRecord {
  symbol: string;
  session: LimitSession;
  tradable: boolean;
  maxAttestationCount: number;
  maxActiveNotionalValue: string;
  /** What a user may attest for the asset within one session, outstanding or not (not part of the public session limits). */
  maxSessionNotionalValue: string;
}

const COLUMNS = `symbol, session, tradable, max_attestation_count AS "maxAttestationCount",
  max_active_notional_value::text AS "maxActiveNotionalValue", max_session_notional_value::text AS "maxSessionNotionalValue"`;

export async function listSessionLimits(db: Queryable): Promise<SessionLimitRecord[]> {
  const { rows } = await db.query<SessionLimitRecord>(`SELECT ${COLUMNS} FROM session_limits ORDER BY symbol, session`);
  return rows;
}

/** Inserts limits that do not exist yet; existing (possibly operator-edited) rows are kept. */
export async function insertDefaultSessionLimits(db: Queryable, limits: SessionLimitRecord[]): Promise<void> {
  if (limits.length === 0) return;
  await db.query(
    `INSERT INTO session_limits (symbol, session, tradable, max_attestation_count, max_active_notional_value, max_session_notional_value)
     SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::integer[], $5::numeric[], $6::numeric[])
     ON CONFLICT DO NOTHING`,
    [
      limits.map((l) => l.symbol),
      limits.map((l) => l.session),
      limits.map((l) => l.tradable),
      limits.map((l) => l.maxAttestationCount),
      limits.map((l) => l.maxActiveNotionalValue),
      limits.map((l) => l.maxSessionNotionalValue),
    ],
  );
}

export async function updateSessionLimit(db: Queryable, limit: SessionLimitRecord): Promise<SessionLimitRecord> {
  const { rows } = await db.query<SessionLimitRecord>(
    `INSERT INTO session_limits (symbol, session, tradable, max_attestation_count, max_active_notional_value, max_session_notional_value)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (symbol, session) DO UPDATE SET tradable = EXCLUDED.tradable,
       max_attestation_count = EXCLUDED.max_attestation_count, max_active_notional_value = EXCLUDED.max_active_notional_value,
       max_session_notional_value = EXCLUDED.max_session_notional_value
     RETURNING ${COLUMNS}`,
    [limit.symbol, limit.session, limit.tradable, limit.maxAttestationCount, limit.maxActiveNotionalValue, limit.maxSessionNotionalValue],
  );
  return rows[0]!;
}
