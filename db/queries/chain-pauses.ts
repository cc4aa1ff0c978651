/** Chains an operator paused (`chain_pauses`): no attestation or soft quote on a paused chain; reads and the chain watcher go on. */
import type { Queryable } from '../pool';

export interface ChainPauseRecord {
  chain: string;
  reason: string;
  pausedAt: Date;
}

const COLUMNS = 'chain, reason, paused_at AS "pausedAt"';

export async function listChainPauses(db: Queryable): Promise<ChainPauseRecord[]> {
  const { rows } = await db.query<ChainPauseRecord>(`SELECT ${COLUMNS} FROM chain_pauses ORDER BY chain`);
  return rows;
}

/** Pauses the chain; pausing a paused chain replaces the reason and keeps when it was paused. */
export async function pauseChain(db: Queryable, chain: string, reason: string): Promise<ChainPauseRecord> {
  const { rows } = await db.query<ChainPauseRecord>(
    `INSERT INTO chain_pauses (chain, reason) VALUES ($1, $2) ON CONFLICT (chain) DO UPDATE SET reason = EXCLUDED.reason RETURNING ${COLUMNS}`,
    [chain, reason],
  );
  return rows[0]!;
}

/** Ends the chain's pause; resuming a running chain changes nothing. */
export async function resumeChain(db: Queryable, chain: string): Promise<void> {
  await db.query('DELETE FROM chain_pauses WHERE chain = $1', [chain]);
}
