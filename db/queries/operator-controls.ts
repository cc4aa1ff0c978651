/**
 * Operator state: the market-wide pause and per-asset status events — the operators' own and the pauses the catalogue
 * schedules before each dividend's ex-date, read together (`currentAssetEventsSql`) wherever an asset's events decide
 * whether it trades.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../pool';

export interface MarketStateRecord {
  paused: boolean;
  reason: string | null;
  updatedAt: Date;
}

/** What an asset status event does while active: no orders, smaller orders, or sells only. */
export const ASSET_STATUS_CODES = ['ASSET_PAUSED', 'ASSET_LIMITED', 'ASSET_REDEEM_ONLY'] as const;
export type AssetStatusCode = (typeof ASSET_STATUS_CODES)[number];

/** Who made an event: an operator (stored, may be deleted) or the catalogue (a dividend's pause, derived, read-only). */
export type AssetStatusEventSource = 'operator' | 'catalogue';

export interface AssetStatusEventRecord {
  eventId: string;
  source: AssetStatusEventSource;
  symbol: string;
  code: AssetStatusCode;
  type: 'scheduled' | 'unscheduled';
  reason: string;
  startsAt: number;
  endsAt: number | null;
  updateSharesMultiplier: boolean;
}

const EVENT_COLUMNS = `event_id AS "eventId", symbol, code, type, reason, starts_at AS "startsAt", ends_at AS "endsAt",
  update_shares_multiplier AS "updateSharesMultiplier"`;

/**
 * The reference issuer's dividend pause: an asset does not trade from 19:50 to 20:10 New York time on the calendar day
 * before each of its dividends' ex-dates (the evening the ex-date's overnight session opens). Its message is the
 * reference's `cash_dividend`.
 */
export const DIVIDEND_PAUSE = { from: '19:50', until: '20:10', reason: 'cash_dividend' } as const;

/** How far ahead of its start a dividend pause is listed as upcoming (operators' events are listed however far). */
export const DIVIDEND_PAUSE_LOOKAHEAD_DAYS = 7;

const DAY_MS = 86_400_000;
const NEW_YORK = 'America/New_York';

/**
 * The asset status events not ended at `now` (an SQL expression of epoch ms, such as a placeholder), as a subquery with
 * the columns of asset_status_events and `source`: the operators' events, and the catalogue's dividend pauses
 * (`DIVIDEND_PAUSE`) that start within DIVIDEND_PAUSE_LOOKAHEAD_DAYS. Every statement that asks which events an asset
 * has reads them from here, so a dividend pause holds wherever an operator's pause does. A dividend pause's id is
 * `div_<symbol>_<ex-date>`; it is not stored, and changes only with the catalogue's dividends. The ex-date range (from
 * New York's date at `now` to two days past the look-ahead, room for a daylight-saving change) only lets the dividends'
 * key narrow the rows read; the window's own instants decide.
 */
export function currentAssetEventsSql(now: string): string {
  const newYorkInstant = (time: string) => `(extract(epoch FROM ((d.ex_date - 1) + time '${time}') AT TIME ZONE '${NEW_YORK}') * 1000)::bigint`;
  const newYorkDate = `(to_timestamp(${now}::bigint / 1000.0) AT TIME ZONE '${NEW_YORK}')::date`;
  return `(SELECT event_id, 'operator' AS source, symbol, code, type, reason, starts_at, ends_at, update_shares_multiplier
             FROM asset_status_events
            WHERE ends_at IS NULL OR ends_at > ${now}
           UNION ALL
           SELECT 'div_' || d.symbol || '_' || to_char(d.ex_date, 'YYYY-MM-DD'), 'catalogue', d.symbol, 'ASSET_PAUSED', 'scheduled',
                  '${DIVIDEND_PAUSE.reason}', w.starts_at, w.ends_at, false
             FROM dividends d
            CROSS JOIN LATERAL (SELECT ${newYorkInstant(DIVIDEND_PAUSE.from)} AS starts_at, ${newYorkInstant(DIVIDEND_PAUSE.until)} AS ends_at) w
            WHERE d.ex_date BETWEEN ${newYorkDate} AND ${newYorkDate} + ${DIVIDEND_PAUSE_LOOKAHEAD_DAYS + 2}
              AND w.ends_at > ${now} AND w.starts_at <= ${now} + ${DIVIDEND_PAUSE_LOOKAHEAD_DAYS * DAY_MS})`;
}

export async function getMarketState(db: Queryable): Promise<MarketStateRecord> {
  const { rows } = await db.query<MarketStateRecord>('SELECT paused, reason, updated_at AS "updatedAt" FROM market_state');
  return rows[0]!;
}

export async function setMarketPaused(db: Queryable, paused: boolean, reason: string | null): Promise<MarketStateRecord> {
  const { rows } = await db.query<MarketStateRecord>(
    'UPDATE market_state SET paused = $1, reason = $2, updated_at = now() RETURNING paused, reason, updated_at AS "updatedAt"',
    [paused, paused ? reason : null],
  );
  return rows[0]!;
}

/** Events that are active at `now` or start later (`currentAssetEventsSql`), oldest start first. */
export async function listCurrentAssetEvents(db: Queryable, now: number, symbol?: string): Promise<AssetStatusEventRecord[]> {
  const { rows } = await db.query<AssetStatusEventRecord>(
    `SELECT source, ${EVENT_COLUMNS} FROM ${currentAssetEventsSql('$1')} AS e
      WHERE $2::text IS NULL OR symbol = $2
      ORDER BY starts_at, event_id`,
    [now, symbol ?? null],
  );
  return rows;
}

export type NewAssetStatusEvent = Omit<AssetStatusEventRecord, 'eventId' | 'source'>;

export async function insertAssetEvent(db: Queryable, event: NewAssetStatusEvent): Promise<AssetStatusEventRecord> {
  const { rows } = await db.query<AssetStatusEventRecord>(
    `INSERT INTO asset_status_events (event_id, symbol, code, type, reason, starts_at, ends_at, update_shares_multiplier)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING 'operator' AS source, ${EVENT_COLUMNS}`,
    [`evt_${randomUUID()}`, event.symbol, event.code, event.type, event.reason, event.startsAt, event.endsAt, event.updateSharesMultiplier],
  );
  return rows[0]!;
}

/**
 * Ends the active unscheduled events of `code` for a symbol at `now`; returns how many ended. One that began at `now`
 * itself was never in effect (an event is active from its start to before its end) and is removed rather than given
 * an empty span, which its table refuses.
 */
export async function endUnscheduledEvents(db: Queryable, symbol: string, code: AssetStatusCode, now: number): Promise<number> {
  const { rows } = await db.query<{ ended: number }>(
    `WITH active AS (
       SELECT event_id, starts_at FROM asset_status_events
        WHERE symbol = $1 AND code = $2 AND type = 'unscheduled' AND starts_at <= $3 AND (ends_at IS NULL OR ends_at > $3)
     ), ended AS (
       UPDATE asset_status_events SET ends_at = $3 WHERE event_id IN (SELECT event_id FROM active WHERE starts_at < $3) RETURNING 1
     ), removed AS (
       DELETE FROM asset_status_events WHERE event_id IN (SELECT event_id FROM active WHERE starts_at = $3) RETURNING 1
     )
     SELECT (SELECT count(*) FROM ended)::int + (SELECT count(*) FROM removed)::int AS ended`,
    [symbol, code, now],
  );
  return rows[0]!.ended;
}

/** Deletes an event; returns false if there was none with this id. */
export async function deleteAssetEvent(db: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM asset_status_events WHERE event_id = $1', [eventId]);
  return rowCount === 1;
}
