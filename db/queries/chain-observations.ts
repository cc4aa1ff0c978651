/**
 * What a chain watcher saw on chain, each log known as the chain names it (chain, block hash, tx hash, log index)
 * with its stage — `seen`, `final` or `orphaned` — and what that made of the attestations (`executing`, `executed`,
 * back to `outstanding`), the redemptions and their partner requests (`awaiting_finality`, `pending`, `cancelled`).
 * Each statement writes, in the same transaction, the outbox messages that report what it changed; the caller runs
 * one poll's statements in one transaction (`inTransaction`).
 */
import type { Queryable } from '../pool';

/** Where a log is on chain. */
export interface LogLocation {
  txHash: `0x${string}`;
  logIndex: number;
  blockNumber: number;
  blockHash: `0x${string}`;
}

/** One TradeExecuted log as scanned. Amounts are decimal strings of base units (18 decimals). */
export interface ObservedExecution extends LogLocation {
  executionId: string;
  attestationId: string;
  userId: `0x${string}`;
  side: 'buy' | 'sell';
  asset: `0x${string}`;
  price: string;
  quantity: string;
  /** Epoch milliseconds: the block time. */
  executedAt: number;
  /** At or below the final block when scanned. */
  final: boolean;
}

/** One IssuerRedeem log as scanned; `redemptionId` is its workflow id. */
export interface ObservedRedemption extends LogLocation {
  redemptionId: string;
  /** Epoch milliseconds. */
  blockTime: number;
  wallet: `0x${string}`;
  userId: `0x${string}`;
  token: `0x${string}`;
  /** The catalogue symbol of the token (null: not one of ours). */
  symbol: string | null;
  underlyingSymbol: string;
  tokenSymbol: string;
  /** Token base units (18 decimals). */
  amount: string;
  /** USD, 18 decimals, as the contract reported it. */
  usdNotional: string;
  final: boolean;
}

/** A log recorded live (not orphaned) in another block than the one the chain now shows it in. */
export interface ConflictingLog extends LogLocation {
  recordedBlockHash: string;
}

/**
 * Logs whose live record sits in another block: the watcher missed the reorganisation that moved them and cannot
 * tell which copy to act on. Rows recorded before block hashes were kept (null hash) are the same log, not a conflict.
 */
export async function conflictingLogs(
  db: Queryable,
  chain: string,
  logs: { executions: LogLocation[]; redemptions: LogLocation[]; transfers?: LogLocation[] },
): Promise<ConflictingLog[]> {
  const locations = (list: LogLocation[]) => JSON.stringify(list.map(({ txHash, logIndex, blockNumber, blockHash }) => ({ txHash, logIndex, blockNumber, blockHash })));
  const { rows } = await db.query<ConflictingLog>(
    `WITH scanned_executions AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS t("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text)),
          scanned_redemptions AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS t("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text)),
          scanned_transfers AS (SELECT * FROM jsonb_to_recordset($4::jsonb) AS t("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text))
     SELECT i."txHash", i."logIndex", i."blockNumber", i."blockHash", t.block_hash AS "recordedBlockHash"
       FROM scanned_executions i JOIN trade_executions t ON t.chain = $1 AND t.tx_hash = i."txHash" AND t.log_index = i."logIndex"
      WHERE t.status <> 'orphaned' AND t.block_hash <> i."blockHash"
     UNION ALL
     SELECT i."txHash", i."logIndex", i."blockNumber", i."blockHash", r.block_hash
       FROM scanned_redemptions i JOIN redemptions r ON r.chain = $1 AND r.tx_hash = i."txHash" AND r.log_index = i."logIndex"
      WHERE r.state <> 'cancelled' AND r.block_hash <> i."blockHash"
     UNION ALL
     SELECT i."txHash", i."logIndex", i."blockNumber", i."blockHash", x.block_hash
       FROM scanned_transfers i JOIN token_transfers x ON x.chain = $1 AND x.tx_hash = i."txHash" AND x.log_index = i."logIndex"
      WHERE x.status <> 'orphaned' AND x.block_hash <> i."blockHash"
      ORDER BY 3, 2`,
    [chain, locations(logs.executions), locations(logs.redemptions), locations(logs.transfers ?? [])],
  );
  return rows;
}

const EXECUTION_PAYLOAD = (row: string) => `jsonb_build_object('attestationId', ${row}.attestation_id::text, 'txHash', ${row}.tx_hash,
  'blockNumber', ${row}.block_number, 'blockHash', ${row}.block_hash, 'logIndex', ${row}.log_index, 'executedAt', ${row}.executed_at)`;

/**
 * The hedge each newly final execution (the rows of CTE `source`: trade_executions columns and `status`) owes, with
 * an outbox message per underlying that wakes its hedging workflow: `tokens` = quantity ÷ 1e18 (exact), at the
 * shares multiplier in force at the execution, shares = tokens × multiplier (exact; the orders round). Written once per
 * log, whatever retries and rescans do.
 */
const HEDGE_OBLIGATIONS = (source: string) => `owed AS (
       INSERT INTO hedge_obligations (chain, tx_hash, log_index, block_hash, attestation_id, symbol, underlying, side, tokens, shares_multiplier,
         shares, attested_price, attested_share_price, executed_at)
       SELECT x.chain, x.tx_hash, x.log_index, x.block_hash, x.attestation_id, a.symbol, a.ticker, x.side, x.quantity * 0.000000000000000001,
              m.multiplier, x.quantity * 0.000000000000000001 * m.multiplier, x.price * 0.000000000000000001,
              round(x.price * 0.000000000000000001 / m.multiplier, 18), x.executed_at
         FROM ${source} x
         JOIN asset_addresses t ON t.network_chain_id = x.chain AND lower(t.address) = lower(x.asset)
         JOIN assets a ON a.symbol = t.symbol
         CROSS JOIN LATERAL (
           SELECT COALESCE((SELECT c.shares_multiplier FROM shares_multiplier_changes c WHERE c.symbol = a.symbol AND c.changed_at <= x.executed_at
                             ORDER BY c.changed_at DESC LIMIT 1), 1) AS multiplier
         ) m
        WHERE x.status = 'final'
       ON CONFLICT DO NOTHING
       RETURNING chain, underlying
     ), told_owed AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT DISTINCT chain, 'hedge_owed', underlying, '{}'::jsonb FROM owed
     )`;

const REDEMPTION_PAYLOAD = (row: string) => `jsonb_build_object('chain', ${row}.chain, 'txHash', ${row}.tx_hash, 'logIndex', ${row}.log_index,
  'blockNumber', ${row}.block_number, 'blockTime', ${row}.block_time, 'wallet', ${row}.wallet, 'userId', ${row}.user_id, 'token', ${row}.token,
  'amount', ${row}.amount::text, 'usdNotional', ${row}.usd_notional::text)`;

/**
 * Records scanned TradeExecuted logs, `seen` or `final`, and moves their attestations — to `executing` (seen) or
 * `executed` (final), from `outstanding`, or from `expired` when the attestation was recorded expired (by its workflow,
 * or off-hours by a later order) before the watcher saw the chain (the contract refuses expired quotes, so a log proves
 * the quote executed in time) — with an outbox message for each attestation moved. A log already recorded changes
 * nothing; an orphaned one seen again (its block is canonical again) is live again. Answers how many logs were new.
 */
export async function recordObservedExecutions(db: Queryable, chain: string, executions: ObservedExecution[]): Promise<number> {
  if (executions.length === 0) return 0;
  const input = JSON.stringify(executions);
  const recordset = (alias: string) => `jsonb_to_recordset($2::jsonb) AS ${alias}("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text, "executionId" numeric,
    "attestationId" numeric, "userId" text, side text, asset text, price numeric, quantity numeric, "executedAt" bigint, final boolean)`;
  // Rows recorded before block hashes were kept are these very logs: they take the hash and stay final.
  await db.query(
    `UPDATE trade_executions t SET block_hash = i."blockHash" FROM ${recordset('i')}
      WHERE t.chain = $1 AND t.tx_hash = i."txHash" AND t.log_index = i."logIndex" AND t.block_hash IS NULL`,
    [chain, input],
  );
  const { rows } = await db.query<{ recorded: number }>(
    `WITH input AS (SELECT * FROM ${recordset('t')}),
     recorded AS (
       INSERT INTO trade_executions (chain, block_hash, tx_hash, log_index, block_number, execution_id, attestation_id, user_id, side, asset, price,
         quantity, executed_at, status)
       SELECT $1, "blockHash", "txHash", "logIndex", "blockNumber", "executionId", "attestationId", "userId", side, asset, price, quantity,
              "executedAt", CASE WHEN final THEN 'final' ELSE 'seen' END
         FROM input
       ON CONFLICT (chain, block_hash, tx_hash, log_index) DO UPDATE SET status = EXCLUDED.status, status_changed_at = now()
        WHERE trade_executions.status = 'orphaned'
       RETURNING chain, tx_hash, log_index, block_hash, attestation_id, side, asset, price, quantity, executed_at, status
     ), ${HEDGE_OBLIGATIONS('recorded')}, moved AS (
       UPDATE attestations a SET state = CASE WHEN i.final THEN 'executed' ELSE 'executing' END, execution_tx_hash = i."txHash",
              execution_block_number = i."blockNumber", execution_block_hash = i."blockHash", execution_log_index = i."logIndex",
              state_changed_at = i."executedAt"
         FROM input i
        WHERE a.attestation_id = i."attestationId" AND a.chain = $1
          AND (a.state IN ('outstanding', 'expired')
               OR (i.final AND a.state = 'executing' AND a.execution_tx_hash = i."txHash" AND a.execution_block_hash = i."blockHash"))
       RETURNING a.state, i."attestationId" AS attestation_id, i."txHash" AS tx_hash, i."blockNumber" AS block_number, i."blockHash" AS block_hash,
                 i."logIndex" AS log_index, i."executedAt" AS executed_at
     ), told AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT $1, CASE WHEN m.state = 'executed' THEN 'execution_final' ELSE 'execution_seen' END, m.attestation_id::text, ${EXECUTION_PAYLOAD('m')}
         FROM moved m
     )
     SELECT count(*)::int AS recorded FROM recorded`,
    [chain, input],
  );
  return rows[0]!.recorded;
}

/**
 * Records scanned IssuerRedeem logs: the redemption `awaiting_finality` (seen) or `pending` (final, with an outbox
 * message that starts its workflow), and its partner request `awaiting_finality` so operators see it at once (the
 * workflow opens it once final). A cancelled redemption whose log is seen again (the same tx and log index in a new
 * block) is revived with the new block. Answers how many were new or revived.
 */
export async function recordObservedRedemptions(db: Queryable, chain: string, redemptions: ObservedRedemption[]): Promise<number> {
  if (redemptions.length === 0) return 0;
  const input = JSON.stringify(redemptions);
  const recordset = `jsonb_to_recordset($2::jsonb) AS i("redemptionId" text, "txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text,
    "blockTime" bigint, wallet text, "userId" text, token text, symbol text, "underlyingSymbol" text, "tokenSymbol" text, amount numeric,
    "usdNotional" numeric, final boolean)`;
  await db.query(
    `UPDATE redemptions r SET block_hash = i."blockHash" FROM ${recordset}
      WHERE r.chain = $1 AND r.redemption_id = i."redemptionId" AND r.block_hash IS NULL`,
    [chain, input],
  );
  const { rows } = await db.query<{ recorded: number }>(
    `WITH input AS (SELECT * FROM ${recordset}),
     recorded AS (
       INSERT INTO redemptions (redemption_id, chain, tx_hash, log_index, block_number, block_hash, block_time, wallet, user_id, token, symbol,
         amount, usd_notional, state)
       SELECT "redemptionId", $1, "txHash", "logIndex", "blockNumber", "blockHash", "blockTime", wallet, "userId", token, symbol, amount,
              "usdNotional", CASE WHEN final THEN 'pending' ELSE 'awaiting_finality' END
         FROM input
       ON CONFLICT (redemption_id) DO UPDATE SET state = EXCLUDED.state, block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash,
              block_time = EXCLUDED.block_time, updated_at = now()
        WHERE redemptions.state = 'cancelled'
       RETURNING *
     ), requests AS (
       INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, token_amount, redemption_id, tx_hash)
       SELECT r.redemption_id, 'redeem', 'awaiting_finality', $1, i."underlyingSymbol", i."tokenSymbol", r.wallet, r.amount, r.redemption_id, r.tx_hash
         FROM recorded r JOIN input i ON i."redemptionId" = r.redemption_id
       ON CONFLICT (issuer_request_id) DO UPDATE SET state = 'awaiting_finality', reason = NULL, updated_at = now()
        WHERE partner_requests.state = 'cancelled'
     ), told AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT $1, 'redemption_final', r.redemption_id, ${REDEMPTION_PAYLOAD('r')} FROM recorded r WHERE r.state = 'pending'
     )
     SELECT count(*)::int AS recorded FROM recorded`,
    [chain, input],
  );
  return rows[0]!.recorded;
}

/**
 * Makes final whatever is seen at or below `finalBlock`: executions (their attestations `executed`), burns (their
 * redemptions `pending`, their workflows started through the outbox) and token transfers; then drops the stored blocks below the new
 * anchor (the highest stored block at or below `finalBlock`).
 */
export async function promoteFinal(db: Queryable, chain: string, finalBlock: number): Promise<{ executions: number; redemptions: number }> {
  const { rows } = await db.query<{ executions: number; redemptions: number }>(
    `WITH promoted AS (
       UPDATE trade_executions SET status = 'final', status_changed_at = now()
        WHERE chain = $1 AND status = 'seen' AND block_number <= $2
       RETURNING chain, attestation_id, tx_hash, block_hash, block_number, log_index, executed_at, side, asset, price, quantity, status
     ), ${HEDGE_OBLIGATIONS('promoted')}, executed AS (
       UPDATE attestations a SET state = 'executed'
         FROM promoted p
        WHERE a.attestation_id = p.attestation_id AND a.chain = $1 AND a.state = 'executing'
          AND a.execution_tx_hash = p.tx_hash AND a.execution_block_hash = p.block_hash
       RETURNING p.*
     ), told_executed AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT $1, 'execution_final', e.attestation_id::text, ${EXECUTION_PAYLOAD('e')} FROM executed e
     ), pending AS (
       UPDATE redemptions SET state = 'pending', updated_at = now()
        WHERE chain = $1 AND state = 'awaiting_finality' AND block_number <= $2
       RETURNING *
     ), told_pending AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT $1, 'redemption_final', r.redemption_id, ${REDEMPTION_PAYLOAD('r')} FROM pending r
     ), transferred AS (
       UPDATE token_transfers SET status = 'final', status_changed_at = now()
        WHERE chain = $1 AND status = 'seen' AND block_number <= $2
     ), pruned AS (
       DELETE FROM chain_blocks WHERE chain = $1 AND number < (SELECT max(number) FROM chain_blocks WHERE chain = $1 AND number <= $2)
     )
     SELECT (SELECT count(*) FROM promoted)::int AS executions, (SELECT count(*) FROM pending)::int AS redemptions`,
    [chain, finalBlock],
  );
  return rows[0]!;
}

/** The first log at a final stage above `block`: a reorganisation there would undo what cannot be undone. */
export async function firstFinalLogAbove(db: Queryable, chain: string, block: number): Promise<(LogLocation & { kind: 'execution' | 'redemption' | 'transfer' }) | undefined> {
  const { rows } = await db.query<LogLocation & { kind: 'execution' | 'redemption' | 'transfer' }>(
    `SELECT 'execution' AS kind, tx_hash AS "txHash", log_index AS "logIndex", block_number AS "blockNumber", block_hash AS "blockHash"
       FROM trade_executions WHERE chain = $1 AND status = 'final' AND block_number > $2
     UNION ALL
     SELECT 'redemption', tx_hash, log_index, block_number, block_hash
       FROM redemptions WHERE chain = $1 AND state NOT IN ('awaiting_finality', 'cancelled') AND block_number > $2
     UNION ALL
     SELECT 'transfer', tx_hash, log_index, block_number, block_hash
       FROM token_transfers WHERE chain = $1 AND status = 'final' AND block_number > $2
     ORDER BY 4, 3 LIMIT 1`,
    [chain, block],
  );
  return rows[0];
}

export interface RewindResult {
  executionsOrphaned: number;
  attestationsReopened: number;
  redemptionsCancelled: number;
}

/**
 * Undoes everything seen above `ancestor` (blocks that left the chain): executions `orphaned` (kept for audit) and
 * their attestations back to `outstanding` — or `expired` once past expiry and `settlementGraceMs` — with an outbox
 * message each; burns' redemptions and partner requests `cancelled`; token transfers `orphaned`; the stored blocks above the ancestor dropped
 * (`dropWindow`: all of them, the next scan anchors afresh) and the cursor back to ancestor + 1. The caller has made
 * sure nothing final lies above the ancestor (`firstFinalLogAbove`).
 */
export async function rewindChain(
  db: Queryable,
  parameters: { chain: string; ancestor: number; settlementGraceMs: number; now: number; dropWindow?: boolean },
): Promise<RewindResult> {
  const { chain, ancestor } = parameters;
  const { rows } = await db.query<RewindResult>(
    `WITH orphaned AS (
       UPDATE trade_executions SET status = 'orphaned', status_changed_at = now()
        WHERE chain = $1 AND status = 'seen' AND block_number > $2
       RETURNING attestation_id, tx_hash, block_hash, block_number, log_index, executed_at
     ), reopened AS (
       UPDATE attestations a
          SET state = CASE WHEN a.expires_at + $3 > $4 THEN 'outstanding' ELSE 'expired' END,
              state_changed_at = CASE WHEN a.expires_at + $3 > $4 THEN NULL ELSE a.expires_at END,
              execution_tx_hash = NULL, execution_block_number = NULL, execution_block_hash = NULL, execution_log_index = NULL
         FROM orphaned o
        WHERE a.attestation_id = o.attestation_id AND a.chain = $1 AND a.state = 'executing'
          AND a.execution_tx_hash = o.tx_hash AND a.execution_block_hash = o.block_hash
       RETURNING o.*
     ), told AS (
       INSERT INTO chain_outbox (chain, kind, subject, payload)
       SELECT $1, 'execution_orphaned', r.attestation_id::text, ${EXECUTION_PAYLOAD('r')} FROM reopened r
     ), cancelled AS (
       UPDATE redemptions SET state = 'cancelled', updated_at = now()
        WHERE chain = $1 AND state = 'awaiting_finality' AND block_number > $2
       RETURNING redemption_id, block_number
     ), requests AS (
       UPDATE partner_requests p SET state = 'cancelled', updated_at = now(),
              reason = 'the burn left the chain in a reorganisation (block ' || c.block_number || ' replaced)'
         FROM cancelled c
        WHERE p.issuer_request_id = c.redemption_id AND p.state = 'awaiting_finality'
     ), untransferred AS (
       UPDATE token_transfers SET status = 'orphaned', status_changed_at = now()
        WHERE chain = $1 AND status = 'seen' AND block_number > $2
     ), dropped AS (
       DELETE FROM chain_blocks WHERE chain = $1 AND (number > $2 OR $5)
     ), cursor AS (
       UPDATE chain_cursors SET next_block = $2 + 1, updated_at = now() WHERE chain = $1
     )
     SELECT (SELECT count(*) FROM orphaned)::int AS "executionsOrphaned", (SELECT count(*) FROM reopened)::int AS "attestationsReopened",
            (SELECT count(*) FROM cancelled)::int AS "redemptionsCancelled"`,
    [chain, ancestor, parameters.settlementGraceMs, parameters.now, parameters.dropWindow ?? false],
  );
  return rows[0]!;
}
