/**
 * The campaign's invariant checker: after a run (issue 36), each invariant of the product's money that can be computed
 * from the stored history — and, given their clients, from the chains — is checked, and every record that breaks one
 * is reported by name (ids, tx hashes, amounts). campaign/README.md says what each invariant means, how it is
 * computed, and what it cannot check as written.
 */
import type { Client } from '@temporalio/client';
import type { PublicClient } from 'viem';
import type { Queryable } from '../db/pool';
import { EVM_CHAINS, SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import { checkLimits, type LimitCaps } from './limits-invariant';
import { checkLiveness, type ChainHeads, type WaitingWorkflow } from './liveness';
import { checkBacking, checkStablecoinOnChains, STABLECOIN_RULES } from './money-invariants';
import { checkStablecoinOnSolana, type SolanaTreasury } from './solana-stablecoin';

/** The invariants of issue 36 this checker computes, by the number the issue gives them. */
export type Invariant =
  | '1 backing'
  | '2 exactly once'
  | '3 nothing not issued'
  | '4 limits'
  | '5 answers kept'
  | '6 liveness'
  | '7 stablecoin'
  | '8 answers in contract';

/** One record (or group of records) breaking an invariant: which rule it breaks and the records, by name. */
export interface Violation {
  invariant: Invariant;
  rule: string;
  records: Record<string, string>;
}

/** A rule stated as SQL: each row it returns breaks it, its columns (text) naming the records. */
export interface SqlRule {
  invariant: Invariant;
  rule: string;
  sql: string;
}

const FINAL_EXECUTION = (x: string, h: string) => `${x}.status = 'final' AND ${x}.chain = ${h}.chain AND ${x}.tx_hash = ${h}.tx_hash AND ${x}.log_index = ${h}.log_index`;

/** The chains whose contracts refuse a quote past its expiry, as an SQL list. */
const EVM_CHAIN_LIST = EVM_CHAINS.map((chain) => `'${chain}'`).join(', ');

/**
 * Executions on Solana that landed after their attestation's expiry, and the latest by how much (ms): nothing on chain
 * reads a Solana quote's time, so one lands until the issuer's nonce advance (sent before the expiry) has landed —
 * late only while the advance was held up. Not a violation of (3) as checkable; the report gives the figure.
 */
export async function lateSolanaExecutions(db: Queryable): Promise<{ count: number; latestByMs: number }> {
  const { rows } = await db.query<{ count: number; latestByMs: number | null }>(
    `SELECT count(*)::int AS count, max(x.executed_at - a.expires_at)::float8 AS "latestByMs"
       FROM trade_executions x JOIN attestations a USING (attestation_id)
      WHERE x.status <> 'orphaned' AND x.executed_at > a.expires_at AND x.chain = $1`,
    [SOLANA_CHAIN],
  );
  return { count: rows[0]!.count, latestByMs: rows[0]!.latestByMs ?? 0 };
}

/** (2) Each final execution is one executed attestation and one hedge obligation; each delivery one final burn; one transaction per key. */
export const EXACTLY_ONCE_RULES: SqlRule[] = [
  {
    invariant: '2 exactly once',
    rule: 'a final execution owes no hedge obligation',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.log_index::text AS "logIndex", x.attestation_id::text AS "attestationId", x.quantity::text AS quantity
            FROM trade_executions x
           WHERE x.status = 'final' AND NOT EXISTS (SELECT 1 FROM hedge_obligations h WHERE ${FINAL_EXECUTION('x', 'h')})
           ORDER BY x.status_changed_at, x.chain, x.tx_hash, x.log_index`,
  },
  {
    invariant: '2 exactly once',
    rule: 'a hedge obligation has no final execution',
    sql: `SELECT h.chain, h.tx_hash AS "txHash", h.log_index::text AS "logIndex", h.attestation_id::text AS "attestationId", h.shares::text AS shares
            FROM hedge_obligations h
           WHERE NOT EXISTS (SELECT 1 FROM trade_executions x WHERE ${FINAL_EXECUTION('x', 'h')})
           ORDER BY h.owed_at, h.chain, h.tx_hash, h.log_index`,
  },
  {
    invariant: '2 exactly once',
    rule: 'an attestation owes more than one hedge obligation',
    sql: `SELECT attestation_id::text AS "attestationId", count(*)::text AS obligations,
                 string_agg(chain || ':' || tx_hash || ':' || log_index, ' ' ORDER BY owed_at) AS "executions", sum(shares)::text AS shares
            FROM hedge_obligations GROUP BY attestation_id HAVING count(*) > 1 ORDER BY min(owed_at)`,
  },
  {
    invariant: '2 exactly once',
    rule: 'an attestation has more than one final execution',
    sql: `SELECT attestation_id::text AS "attestationId", count(*)::text AS executions,
                 string_agg(chain || ':' || tx_hash || ':' || log_index, ' ' ORDER BY status_changed_at) AS "txHashes"
            FROM trade_executions WHERE status = 'final' GROUP BY attestation_id HAVING count(*) > 1 ORDER BY min(status_changed_at)`,
  },
  {
    invariant: '2 exactly once',
    rule: 'a final execution whose attestation is not executed by it',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.log_index::text AS "logIndex", a.attestation_id::text AS "attestationId", a.state,
                 coalesce(a.execution_tx_hash, '') AS "attestationTxHash"
            FROM trade_executions x JOIN attestations a USING (attestation_id)
           WHERE x.status = 'final' AND (a.state <> 'executed' OR a.execution_tx_hash IS DISTINCT FROM x.tx_hash)
           ORDER BY x.status_changed_at, x.chain, x.tx_hash`,
  },
  {
    invariant: '2 exactly once',
    rule: 'an executed attestation has no final execution of its transaction',
    sql: `SELECT a.attestation_id::text AS "attestationId", a.chain, coalesce(a.execution_tx_hash, '') AS "txHash"
            FROM attestations a
           WHERE a.state = 'executed' AND NOT EXISTS (
                   SELECT 1 FROM trade_executions x WHERE x.status = 'final' AND x.attestation_id = a.attestation_id AND x.tx_hash = a.execution_tx_hash)
           ORDER BY a.state_changed_at, a.attestation_id`,
  },
  {
    invariant: '2 exactly once',
    rule: 'shares delivered for a burn that is not final',
    sql: `SELECT p.issuer_request_id AS "issuerRequestId", p.state, r.redemption_id AS "redemptionId", r.chain, r.tx_hash AS "txHash",
                 r.state AS "redemptionState", r.amount::text AS amount
            FROM partner_requests p JOIN redemptions r USING (redemption_id)
           WHERE p.kind = 'redeem' AND p.state IN ('delivering', 'completed') AND r.state IN ('awaiting_finality', 'cancelled')
           ORDER BY p.updated_at, p.issuer_request_id`,
  },
  {
    invariant: '2 exactly once',
    rule: 'two issuer transactions succeeded for one key',
    // A partner mint's key ends with its attempt (activities/partner.ts): its attempts are one key, one mint.
    sql: `SELECT regexp_replace(key, '(:processMint):[0-9]+$', '\\1') AS key, chain, count(*)::text AS transactions,
                 string_agg(tx_hash, ' ' ORDER BY created_at) AS "txHashes"
            FROM chain_transactions WHERE state = 'confirmed'
           GROUP BY 1, chain HAVING count(*) > 1 ORDER BY min(created_at)`,
  },
];

/** (3) Every execution on chain is of an attestation the API created, unexpired when it landed; every mint of a stock token has its request. */
export const ISSUED_ONLY_RULES: SqlRule[] = [
  {
    invariant: '3 nothing not issued',
    rule: 'an execution of an attestation the API never created',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.log_index::text AS "logIndex", x.attestation_id::text AS "attestationId", x.status
            FROM trade_executions x
           WHERE x.status <> 'orphaned' AND NOT EXISTS (SELECT 1 FROM attestations a WHERE a.attestation_id = x.attestation_id)
           ORDER BY x.seen_at, x.chain, x.tx_hash, x.log_index`,
  },
  {
    invariant: '3 nothing not issued',
    rule: 'an execution landed after its attestation expired',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.attestation_id::text AS "attestationId",
                 to_char(to_timestamp(x.executed_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "executedAt",
                 to_char(to_timestamp(a.expires_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"
            FROM trade_executions x JOIN attestations a USING (attestation_id)
           WHERE x.status <> 'orphaned' AND x.executed_at > a.expires_at AND x.chain IN (${EVM_CHAIN_LIST})
           ORDER BY x.executed_at, x.chain, x.tx_hash`,
  },
  {
    invariant: '3 nothing not issued',
    rule: 'an execution differs from its attestation (chain or side)',
    sql: `SELECT x.chain, x.tx_hash AS "txHash", x.attestation_id::text AS "attestationId", x.side, a.chain AS "attestedChain", a.side AS "attestedSide"
            FROM trade_executions x JOIN attestations a USING (attestation_id)
           WHERE x.status <> 'orphaned' AND (x.chain <> a.chain OR x.side <> a.side)
           ORDER BY x.seen_at, x.chain, x.tx_hash`,
  },
  {
    invariant: '3 nothing not issued',
    rule: 'a stock token minted by neither an execution nor a partner mint',
    sql: `SELECT t.chain, t.tx_hash AS "txHash", t.log_index::text AS "logIndex", s.symbol, t.recipient, t.amount::text AS amount
            FROM token_transfers t JOIN asset_addresses s ON s.network_chain_id = t.chain AND lower(s.address) = t.token
           WHERE t.status <> 'orphaned' AND t.sender = '0x0000000000000000000000000000000000000000'
             AND NOT EXISTS (SELECT 1 FROM trade_executions x WHERE x.status <> 'orphaned' AND x.chain = t.chain AND x.tx_hash = t.tx_hash)
             AND NOT EXISTS (SELECT 1 FROM partner_requests p WHERE p.kind = 'mint' AND p.chain = t.chain AND lower(p.tx_hash) = t.tx_hash)
           ORDER BY t.block_number, t.tx_hash, t.log_index`,
  },
];

/** Runs each rule; a row is a violation, its columns the records named. */
export async function checkRules(db: Queryable, rules: SqlRule[]): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const { invariant, rule, sql } of rules) {
    const { rows } = await db.query<Record<string, string>>(sql);
    violations.push(...rows.map((records) => ({ invariant, rule, records })));
  }
  return violations;
}

export interface CheckOptions {
  /** The caps of invariant 4 that are not in the database (OFFHOURS_*_EXPOSURE_LIMIT). */
  caps: LimitCaps;
  /** The EVM chains to read the token manager's stablecoin on (invariant 7); absent: checked from the database alone. */
  chains?: Partial<Record<EvmChain, PublicClient>>;
  /** The Solana ledger and the issuer's treasury on it (invariant 7 on Solana); absent: not read. */
  solana?: SolanaTreasury;
}

/** Every invariant this checker computes, in the issue's order; an empty list is a clean run. */
export async function checkInvariants(db: Queryable, options: CheckOptions): Promise<Violation[]> {
  return [
    ...(await checkBacking(db)),
    ...(await checkRules(db, EXACTLY_ONCE_RULES)),
    ...(await checkRules(db, ISSUED_ONLY_RULES)),
    ...(await checkLimits(db, options.caps)),
    ...(await checkRules(db, STABLECOIN_RULES)),
    ...(options.chains ? await checkStablecoinOnChains(db, options.chains) : []),
    ...(options.solana ? await checkStablecoinOnSolana(db, options.solana) : []),
  ];
}

export interface CampaignCheckOptions extends CheckOptions {
  /** The product's Temporal service (invariant 6); absent: liveness not checked. */
  temporal?: Client;
  /** Each chain's head now, to judge the watchers against (EVM: latest block, Solana: `confirmed` slot). */
  heads?: ChainHeads;
  /** How long a watcher has to reach the head read when judged (default 30 s). */
  headTimeoutMs?: number;
}

export interface CampaignCheck {
  violations: Violation[];
  /** The workflows waiting for a person, with the reason an operator reads (not violations: the report lists them). */
  waiting: WaitingWorkflow[];
}

/** `checkInvariants` and, given the Temporal client, liveness (6): what `npm run campaign:check` and the campaign report. */
export async function checkCampaign(db: Queryable, options: CampaignCheckOptions): Promise<CampaignCheck> {
  const violations = await checkInvariants(db, options);
  if (!options.temporal) return { violations, waiting: [] };
  const liveness = await checkLiveness({ client: options.temporal, db, heads: options.heads, headTimeoutMs: options.headTimeoutMs });
  return { violations: [...violations, ...liveness.violations], waiting: liveness.waiting };
}

/** One line per violation: `[invariant] rule: key=value …`. */
export function formatViolation(violation: Violation): string {
  const records = Object.entries(violation.records).map(([key, value]) => `${key}=${value}`);
  return `[${violation.invariant}] ${violation.rule}: ${records.join(' ')}`;
}
