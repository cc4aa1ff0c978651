/** Operator state: the market-wide pause and per-asset status events. */
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

export interface AssetStatusEventRecord {
  eventId: string;
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

/** Events that are active at `now` or start later, oldest start first. */
export async function listCurrentAssetEvents(db: Queryable, now: number, symbol?: string): Promise<AssetStatusEventRecord[]> {
  const { rows } = await db.query<AssetStatusEventRecord>(
    `SELECT ${EVENT_COLUMNS} FROM asset_status_events
      WHERE (ends_at IS NULL OR ends_at > $1) AND ($2::text IS NULL OR symbol = $2)
      ORDER BY starts_at, event_id`,
    [now, symbol ?? null],
  );
  return rows;
}

export type NewAssetStatusEvent = Omit<AssetStatusEventRecord, 'eventId'>;

export async function insertAssetEvent(db: Queryable, event: NewAssetStatusEvent): Promise<AssetStatusEventRecord> {
  const { rows } = await db.query<AssetStatusEventRecord>(
    `INSERT INTO asset_status_events (event_id, symbol, code, type, reason, starts_at, ends_at, update_shares_multiplier)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${EVENT_COLUMNS}`,
    [`evt_${randomUUID()}`, event.symbol, event.code, event.type, event.reason, event.startsAt, event.endsAt, event.updateSharesMultiplier],
  );
  return rows[0]!;
}

/** Ends the active unscheduled events of `code` for a symbol at `now`; returns how many ended. */
export async function endUnscheduledEvents(db: Queryable, symbol: string, code: AssetStatusCode, now: number): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE asset_status_events SET ends_at = $3
      WHERE symbol = $1 AND code = $2 AND type = 'unscheduled' AND starts_at <= $3 AND (ends_at IS NULL OR ends_at > $3)`,
    [symbol, code, now],
  );
  return rowCount ?? 0;
}

/** Deletes an event; returns false if there was none with this id. */
export async function deleteAssetEvent(db: Queryable, eventId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM asset_status_events WHERE event_id = $1', [eventId]);
  return rowCount === 1;
}
