/**
 * A chain watcher's own state in SQL: its cursor (the next block, the head it saw, the last final block, whether it
 * is halted and why), the window of block hashes it scanned (the last final block, the anchor, and every block
 * above it), and the outbox of what workflows must still be told. What the watcher saw on chain, and what that
 * changed, is in chain-observations.ts.
 */
import type { BlockHeader } from '../../chains/finality';
import type { ChainWatcherHalt } from '../../temporal/messages';
import type { Queryable } from '../pool';

export interface WatcherCursor {
  nextBlock: number;
  status: 'ok' | 'halted';
  /** The halt, or the last transient error while the watcher retries. */
  lastError: ChainWatcherHalt | { message: string } | null;
  /** The last final block the watcher acted on. */
  finalBlock: number | null;
  seenHead: number | null;
  /** Seconds since the watcher last recorded a scan or, before its first, since the cursor was set (domain/watcher-stall.ts). */
  secondsSinceProgress: number;
}

const CURSOR_COLUMNS = `next_block AS "nextBlock", status, last_error AS "lastError", final_block AS "finalBlock", seen_head AS "seenHead",
  extract(epoch FROM now() - coalesce(seen_head_at, updated_at))::float8 AS "secondsSinceProgress"`;

export async function readWatcherCursor(db: Queryable, chain: string): Promise<WatcherCursor | undefined> {
  const { rows } = await db.query<WatcherCursor>(`SELECT ${CURSOR_COLUMNS} FROM chain_cursors WHERE chain = $1`, [chain]);
  return rows[0];
}

/** Reads the cursor and locks it until the transaction ends: one poll of a chain writes at a time. */
export async function lockWatcherCursor(db: Queryable, chain: string): Promise<WatcherCursor | undefined> {
  const { rows } = await db.query<WatcherCursor>(`SELECT ${CURSOR_COLUMNS} FROM chain_cursors WHERE chain = $1 FOR UPDATE`, [chain]);
  return rows[0];
}

/** Where the poll leaves the watcher: the next block to scan, the head it saw and the last final block; clears a transient error. */
export async function recordWatcherProgress(db: Queryable, chain: string, progress: { nextBlock: number; seenHead: number; finalBlock: number }): Promise<void> {
  await db.query(
    `UPDATE chain_cursors SET next_block = $2, seen_head = $3, seen_head_at = now(), final_block = greatest(final_block, $4),
            last_error = CASE WHEN status = 'ok' THEN NULL ELSE last_error END, updated_at = now()
      WHERE chain = $1`,
    [chain, progress.nextBlock, progress.seenHead, progress.finalBlock],
  );
}

/** Halts the chain's watcher with the error that stopped it: nothing more happens on that chain until an operator resumes it. */
export async function haltChainWatcher(db: Queryable, chain: string, halt: ChainWatcherHalt): Promise<void> {
  await db.query(`UPDATE chain_cursors SET status = 'halted', last_error = $2, last_error_at = now(), updated_at = now() WHERE chain = $1`, [
    chain,
    JSON.stringify(halt),
  ]);
}

/** An operator's resume: the watcher runs again (and halts again if the cause is still there). */
export async function resumeChainWatcher(db: Queryable, chain: string): Promise<void> {
  await db.query(`UPDATE chain_cursors SET status = 'ok', last_error = NULL, last_error_at = NULL, updated_at = now() WHERE chain = $1`, [chain]);
}

/** The last transient failure of a poll (an RPC or the database down), kept visible while the watcher retries. */
export async function recordWatcherError(db: Queryable, chain: string, message: string): Promise<void> {
  await db.query(
    `UPDATE chain_cursors SET last_error = jsonb_build_object('message', $2::text), last_error_at = now() WHERE chain = $1 AND status = 'ok'`,
    [chain, message],
  );
}

/**
 * Sets the cursor anywhere (an operator re-scanning blocks); what was recorded stays recorded once. The stored block
 * hashes from the new cursor on are dropped: the scan fetches those blocks again.
 */
export async function resetChainCursor(db: Queryable, chain: string, nextBlock: number): Promise<void> {
  await db.query(
    `WITH dropped AS (DELETE FROM chain_blocks WHERE chain = $1 AND number >= $2)
     UPDATE chain_cursors SET next_block = $2, updated_at = now() WHERE chain = $1`,
    [chain, nextBlock],
  );
}

/** The stored window, lowest block first: the anchor (the last final block scanned), then every block above it. */
export async function loadChainWindow(db: Queryable, chain: string): Promise<BlockHeader[]> {
  const { rows } = await db.query<BlockHeader>(
    `SELECT number, hash, parent_hash AS "parentHash", timestamp FROM chain_blocks WHERE chain = $1 ORDER BY number`,
    [chain],
  );
  return rows;
}

/**
 * Stores scanned headers. Answers the numbers already stored under another hash (the chain moved under the scan):
 * then nothing is stored and the caller abandons the poll.
 */
export async function storeChainBlocks(db: Queryable, chain: string, headers: BlockHeader[]): Promise<number[]> {
  if (headers.length === 0) return [];
  const input = JSON.stringify(headers);
  const { rows } = await db.query<{ number: number }>(
    `SELECT b.number FROM chain_blocks b JOIN jsonb_to_recordset($2::jsonb) AS i(number bigint, hash text) ON i.number = b.number
      WHERE b.chain = $1 AND b.hash <> i.hash`,
    [chain, input],
  );
  if (rows.length > 0) return rows.map((row) => row.number);
  await db.query(
    `INSERT INTO chain_blocks (chain, number, hash, parent_hash, timestamp)
     SELECT $1, number, hash, "parentHash", timestamp FROM jsonb_to_recordset($2::jsonb) AS i(number bigint, hash text, "parentHash" text, timestamp bigint)
     ON CONFLICT (chain, number) DO NOTHING`,
    [chain, input],
  );
  return [];
}

export type ChainMessageKind = 'execution_seen' | 'execution_orphaned' | 'execution_final' | 'redemption_final' | 'hedge_owed';

/** One message of the outbox: `subject` is the attestation id (execution_*) or the redemption's workflow id. */
export interface ChainMessage {
  id: number;
  kind: ChainMessageKind;
  subject: string;
  payload: Record<string, unknown>;
}

/** The oldest `limit` messages of a chain still to deliver. */
export async function pendingChainMessages(db: Queryable, chain: string, limit: number): Promise<ChainMessage[]> {
  const { rows } = await db.query<ChainMessage>(`SELECT id, kind, subject, payload FROM chain_outbox WHERE chain = $1 ORDER BY id LIMIT $2`, [chain, limit]);
  return rows;
}

export async function deleteChainMessages(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length > 0) await db.query(`DELETE FROM chain_outbox WHERE id = ANY($1::bigint[])`, [ids]);
}

export interface WatcherCursorSummary extends WatcherCursor {
  chain: string;
  /** Seconds since the watcher last recorded the head it saw (null: never). */
  secondsSinceScan: number | null;
}

/** Every chain's watcher cursor, with how long ago it last saw the head. */
export async function listWatcherCursors(db: Queryable): Promise<WatcherCursorSummary[]> {
  const { rows } = await db.query<WatcherCursorSummary>(
    `SELECT chain, ${CURSOR_COLUMNS}, extract(epoch FROM now() - seen_head_at)::float8 AS "secondsSinceScan" FROM chain_cursors ORDER BY chain`,
  );
  return rows;
}
