/**
 * Settling after the campaign's faults stop, before its invariants are checked: waits, bounded, until nothing is in
 * flight — no attestation past its expiry still open or any executing, no execution or burn seen and not final, no
 * partner request or redemption mid-flow (one waiting in review is an operator's, not in flight), no hedge owed
 * unbatched nor batch open, and every chain watcher's final block at the head its chain had when settling began (so
 * all that happened during the run is final) — then has the reserves workflow compute after that (its
 * `reservesRecompute` signal; its `reservesState` query counts computations) and waits for that snapshot. Reads the product only: nothing is advanced by hand.
 */
import type { Client } from '@temporalio/client';
import type { Queryable } from '../db/pool';
import { latestReserveSnapshot } from '../db/queries/reserves';
import { reservesRecomputeSignal, reservesStateQuery } from '../temporal/messages';
import { RESERVES_WORKFLOW_ID } from '../temporal/workflow-ids';
import { stackChainHeads } from './liveness';
import type { CampaignTarget } from './model';

export interface SettleParameters {
  db: Queryable;
  temporal: Client;
  target: CampaignTarget;
  /** The bound on the whole wait, reserves computation included. */
  timeoutMs: number;
  /**
   * The workers' ATTESTATION_SETTLEMENT_GRACE_MS: an attestation is recorded expired only that long after its expiry
   * (a late watcher may still report an execution), so one is in flight until then.
   */
  settlementGraceMs: number;
  /** Between two looks (default 500 ms). */
  pollMs?: number;
}

/** One thing still moving: what it is and the records that name it. */
export interface InFlight {
  what: string;
  records: Record<string, string>;
}

export interface SettleResult {
  settled: boolean;
  /** What was in flight when settling began (what was waited for). */
  waitedFor: InFlight[];
  /** What was still in flight at the deadline (empty once settled). */
  inFlight: InFlight[];
  /** When the reserves snapshot computed after everything settled was taken (epoch ms, the worker's clock), or null if not reached. */
  reservesTakenAt: number | null;
  elapsedMs: number;
}

/** Each query: the rows still in flight, their columns (text) naming them. */
const IN_FLIGHT: { what: string; sql: string }[] = [
  {
    what: 'an attestation past its expiry and settlement grace not resolved',
    sql: `SELECT attestation_id::text AS "attestationId", chain, state, expires_at::text AS "expiresAt" FROM attestations
           WHERE state = 'outstanding' AND expires_at + $1 < (extract(epoch FROM clock_timestamp()) * 1000)::bigint ORDER BY expires_at`,
  },
  {
    what: 'an attestation executing, its execution not final',
    sql: `SELECT attestation_id::text AS "attestationId", chain, coalesce(execution_tx_hash, '') AS "txHash" FROM attestations WHERE state = 'executing' ORDER BY state_changed_at`,
  },
  {
    what: 'an execution seen, not final',
    sql: `SELECT chain, tx_hash AS "txHash", log_index::text AS "logIndex", attestation_id::text AS "attestationId" FROM trade_executions WHERE status = 'seen' ORDER BY seen_at`,
  },
  {
    what: 'a partner request mid-flow',
    sql: `SELECT issuer_request_id AS "issuerRequestId", kind, state FROM partner_requests
           WHERE state NOT IN ('completed', 'rejected', 'cancelled', 'needs_review') ORDER BY updated_at`,
  },
  {
    what: 'a redemption mid-flow',
    sql: `SELECT redemption_id AS "redemptionId", chain, tx_hash AS "txHash", state FROM redemptions
           WHERE state NOT IN ('completed', 'rejected', 'cancelled', 'needs_review') ORDER BY redemption_id`,
  },
  {
    what: 'a hedge owed, not batched',
    sql: `SELECT chain, tx_hash AS "txHash", underlying, side, shares::text AS shares FROM hedge_obligations WHERE batch_id IS NULL ORDER BY owed_at`,
  },
  {
    what: 'a hedge batch open',
    sql: `SELECT batch_id AS "batchId", underlying FROM hedge_batches WHERE state = 'open' ORDER BY created_at`,
  },
];

async function inFlight(db: Queryable, heads: Map<string, bigint>, settlementGraceMs: number): Promise<InFlight[]> {
  const found: InFlight[] = [];
  for (const { what, sql } of IN_FLIGHT) {
    const { rows } = await db.query<Record<string, string>>(sql, sql.includes('$1') ? [settlementGraceMs] : []);
    found.push(...rows.map((records) => ({ what, records })));
  }
  const { rows: cursors } = await db.query<{ chain: string; finalBlock: string | null; status: string }>(
    `SELECT chain, final_block::text AS "finalBlock", status FROM chain_cursors ORDER BY chain`,
  );
  for (const cursor of cursors) {
    const head = heads.get(cursor.chain);
    if (cursor.status === 'halted') found.push({ what: 'a chain watcher halted', records: { chain: cursor.chain } });
    else if (head !== undefined && (cursor.finalBlock === null || BigInt(cursor.finalBlock) < head)) {
      found.push({ what: 'a chain watcher not final up to the head settling began at', records: { chain: cursor.chain, finalBlock: cursor.finalBlock ?? '', head: head.toString() } });
    }
  }
  return found;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until nothing is in flight and a reserves computation follows; on the deadline, says what still moves. */
export async function settle(parameters: SettleParameters): Promise<SettleResult> {
  const { db, temporal, target, timeoutMs } = parameters;
  const pollMs = parameters.pollMs ?? 500;
  const started = Date.now();
  const deadline = started + timeoutMs;
  const heads = new Map<string, bigint>();
  for (const [chain, head] of Object.entries(stackChainHeads(target.stack))) heads.set(chain, BigInt(await head()));
  const waitedFor = await inFlight(db, heads, parameters.settlementGraceMs);
  let moving = waitedFor;
  while (moving.length > 0) {
    if (Date.now() >= deadline) return { settled: false, waitedFor, inFlight: moving, reservesTakenAt: null, elapsedMs: Date.now() - started };
    await pause(pollMs);
    moving = await inFlight(db, heads, parameters.settlementGraceMs);
  }
  // After the last fill: a computation that began after this moment, waited for. One may be under way, begun before:
  // the signal then makes the workflow compute again once it ends; otherwise it computes at once. Asking again after
  // the next one ends makes a second either way, and that second began after the first signal.
  const reserves = temporal.workflow.getHandle(RESERVES_WORKFLOW_ID);
  const computations = async () => (await reserves.query(reservesStateQuery)).computations;
  const before = await computations();
  await reserves.signal(reservesRecomputeSignal);
  let askedAgain = false;
  for (;;) {
    const done = await computations();
    if (done >= before + 1 && !askedAgain) {
      await reserves.signal(reservesRecomputeSignal);
      askedAgain = true;
    }
    if (done >= before + 2) {
      const snapshot = await latestReserveSnapshot(db);
      return { settled: true, waitedFor, inFlight: [], reservesTakenAt: snapshot?.takenAt ?? null, elapsedMs: Date.now() - started };
    }
    if (Date.now() >= deadline) {
      return {
        settled: false,
        waitedFor,
        inFlight: [{ what: 'the reserves computation asked for after settling', records: { workflowId: RESERVES_WORKFLOW_ID, computationsBefore: String(before), computationsNow: String(done) } }],
        reservesTakenAt: null,
        elapsedMs: Date.now() - started,
      };
    }
    await pause(pollMs);
  }
}
