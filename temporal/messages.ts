/**
 * Signal, query and update definitions shared by workflows and their callers (API handlers, scripts).
 * Each message is defined once here with `defineSignal` / `defineQuery` / `defineUpdate` from
 * `@temporalio/workflow` and imported by both sides, so names and payload types cannot drift apart.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AttestationState } from '../domain/attestation-state';

/** An attestation's quote executed on chain, as the chain watcher reports it. */
export interface AttestationExecution {
  txHash: string;
  /** Epoch milliseconds: the block time of the execution. */
  executedAt: number;
  /** Where the TradeExecuted log is (absent in signals sent before the watcher existed). */
  blockNumber?: number;
  logIndex?: number;
}

/** Reports a final execution to `attestation-<id>`; only the first one at or before expiry counts. */
export const attestationExecutedSignal = defineSignal<[AttestationExecution]>('attestationExecuted');

/** An execution the chain watcher saw but that is not final: which block holds it. */
export interface AttestationExecutionSeen {
  txHash: string;
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  /** Epoch milliseconds: the block time. */
  executedAt: number;
}

/** The attestation's execution is on chain, not final yet: the workflow does not expire it meanwhile. */
export const attestationExecutionSeenSignal = defineSignal<[AttestationExecutionSeen]>('attestationExecutionSeen');

/** The block holding the execution left the chain in a reorganisation: the attestation is outstanding again (or expired). */
export const attestationExecutionOrphanedSignal = defineSignal<[AttestationExecutionSeen]>('attestationExecutionOrphaned');

export interface AttestationWorkflowState {
  attestationId: string;
  state: AttestationState;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** The execution: final once `executed`, seen on chain while `executing`. */
  txHash: string | null;
}

/** The attestation workflow's current view of its attestation; answers at any time, also after it closed. */
export const attestationStateQuery = defineQuery<AttestationWorkflowState>('attestationState');

export interface AttestationWorkflowInput {
  /** 128-bit decimal string. */
  attestationId: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** How long after expiry a late chain watcher may still report an execution that happened before expiry. */
  settlementGraceMs: number;
  /** The attestation's chain; `solana-900` has a durable nonce to advance at expiry (absent in histories recorded before: none). */
  chain?: string;
}

/** `ApplicationFailure` types of the attestation lifecycle (workflow and activities); all non-retryable. */
export const attestationFailureTypes = {
  /** No attestation with that id in the database. */
  notFound: 'ATTESTATION_NOT_FOUND',
  /** The attestation is already recorded as executed by another transaction. */
  executionConflict: 'ATTESTATION_EXECUTION_CONFLICT',
} as const;

export type AttestationFailureType = (typeof attestationFailureTypes)[keyof typeof attestationFailureTypes];

/** `ApplicationFailure` types of the chain activities; all non-retryable but `watcherHalted` (retried until an operator resumes the watcher). */
export const chainFailureTypes = {
  notDeployed: 'CHAIN_NOT_DEPLOYED',
  unknownChain: 'UNKNOWN_CHAIN',
  notConfigured: 'CHAINS_NOT_CONFIGURED',
  watcherHalted: 'CHAIN_WATCHER_HALTED',
} as const;

/** `ApplicationFailure` types that halt a chain's watcher (non-retryable): it waits for an operator's resume. */
export const chainWatcherHaltTypes = {
  /** A reorganisation replaced the last final block the watcher acted on (deeper than its window). */
  reorgTooDeep: 'CHAIN_REORG_TOO_DEEP',
  /** A log the watcher cannot record (malformed, or contradicting what is recorded). */
  logUnprocessable: 'CHAIN_LOG_UNPROCESSABLE',
} as const;

export type ChainWatcherHaltType = (typeof chainWatcherHaltTypes)[keyof typeof chainWatcherHaltTypes];

/** Why a watcher halted, naming the block and (when one is to blame) the log. */
export interface ChainWatcherHalt {
  type: ChainWatcherHaltType;
  chain: string;
  message: string;
  blockNumber: number;
  blockHash: string | null;
  txHash: string | null;
  logIndex: number | null;
  /** Epoch milliseconds. */
  at: number;
}

/** Where a chain watcher stands: its last scan, the last reorganisation it undid, and its halt if it is halted. */
export interface ChainWatcherState {
  chain: string;
  status: 'watching' | 'halted';
  /** The last range scanned and handled (inclusive; toBlock = fromBlock - 1 when nothing was new), or null before the first scan. */
  lastScan: {
    fromBlock: number;
    toBlock: number;
    head: number;
    /** The last final block: everything at or below it is acted on. */
    finalBlock: number;
    executions: number;
    redemptions: number;
    at: number;
  } | null;
  /** The last reorganisation undone: blocks above `ancestor` left the chain. */
  lastReorg: { ancestor: number; replacedBlocks: number; executionsOrphaned: number; redemptionsCancelled: number; at: number } | null;
  halt: ChainWatcherHalt | null;
  /** Scans since this run started (continue-as-new starts over). */
  scans: number;
}

export const chainWatcherStateQuery = defineQuery<ChainWatcherState>('chainWatcherState');

export interface ChainWatcherResume {
  /**
   * After a reorganisation deeper than the window: accept the chain as it is now — drop the stored hashes, undo what
   * is not final, and scan again from `fromBlock` (default: the block after the last final one). Final records in
   * the replaced blocks are the operator's to reconcile: a final log the chain now shows elsewhere halts the watcher
   * again, naming it.
   */
  reanchor?: boolean;
  fromBlock?: number;
}

/** An operator looked into a halt: the watcher clears it and scans again (halting again if the cause remains). */
export const chainWatcherResumeSignal = defineSignal<[ChainWatcherResume]>('chainWatcherResume');

export interface ChainWatcherInput {
  chain: string;
  /** How long a caught-up watcher waits before polling again. */
  pollIntervalMs: number;
  /** What the previous run showed, carried when the watcher continues as new, so its state query keeps it. */
  carried?: Pick<ChainWatcherState, 'lastScan' | 'lastReorg' | 'scans'>;
}

/** An IssuerRedeem log: the tokens a wallet burned through the issuer contract. Amounts are base-unit decimal strings. */
export interface RedemptionInput {
  chain: string;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  /** Epoch milliseconds. */
  blockTime: number;
  wallet: string;
  userId: string;
  token: string;
  /** Token base units (18 decimals). */
  amount: string;
  /** USD with 18 decimals, as the contract reported it. */
  usdNotional: string;
  /** How often a held redemption looks again at the pauses and at the broker, ms (default 5 s). */
  pollIntervalMs?: number;
}

/** `pending` until the shares are delivered to the partner account (or the burn was dust only). */
export type RedemptionState = 'pending' | 'completed';

export interface RedemptionWorkflowState {
  redemptionId: string;
  state: RedemptionState;
  symbol: string | null;
}

export const redemptionStateQuery = defineQuery<RedemptionWorkflowState>('redemptionState');

export interface WalletRegistrationInput {
  chain: string;
  address: string;
}

/** A partner mint (`partner-mint-<issuerRequestId>`): everything else is read from its stored request. */
export interface PartnerMintInput {
  issuerRequestId: string;
  /** How long to wait for the broker's confirm before rejecting, ms (default 1 hour). */
  confirmTimeoutMs?: number;
  /** How often a held request looks again at the pauses and at the broker, ms (default 5 s). */
  pollIntervalMs?: number;
}

/** The broker's word that it journalled the shares to the issuer's account (or could not). */
export interface BrokerConfirm {
  status: 'completed' | 'rejected';
  reason?: string;
}

export const brokerConfirmSignal = defineSignal<[BrokerConfirm]>('brokerConfirm');

/** An operator resolved what held the request for review (e.g. assigned the redemption's client): look again. */
export const partnerResumeSignal = defineSignal('partnerResume');

/** Where a partner request's workflow stands: its stored state and, while it waits, what it waits for. */
export interface PartnerRequestWorkflowState {
  issuerRequestId: string;
  kind: 'mint' | 'redeem';
  state: string;
  /** What the workflow is doing or waiting for, e.g. `awaiting_confirm`, `paused`, `waiting_for_limit`, `needs_review`. */
  step: string;
  reason: string | null;
  txHash: string | null;
}

export const partnerRequestStateQuery = defineQuery<PartnerRequestWorkflowState>('partnerRequestState');

/** A hedging workflow's input: the underlying it hedges and how long it collects obligations before ordering. */
export interface HedgeInput {
  underlying: string;
  windowMs: number;
}

/** Obligations are owed for the workflow's underlying (sent by the chain watcher's outbox; carries nothing: SQL holds them). */
export const hedgeOwedSignal = defineSignal('hedgeOwed');

/** What a hedging workflow is doing, for operators. */
export interface HedgeWorkflowState {
  underlying: string;
  status: 'idle' | 'collecting' | 'ordering';
  batchId: string | null;
  batches: number;
  lastBatch: { batchId: string; state: string; at: number } | null;
}

export const hedgeStateQuery = defineQuery<HedgeWorkflowState>('hedgeState');

/** The reserves workflow's input: how often it recomputes. */
export interface ReservesInput {
  intervalMs: number;
}

/** Recompute the reserves now (a hedge filled). */
export const reservesRecomputeSignal = defineSignal('reservesRecompute');

export interface ReservesWorkflowState {
  computations: number;
  last: { at: number; short: string[]; paused: string[]; resumed: string[] } | null;
}

export const reservesStateQuery = defineQuery<ReservesWorkflowState>('reservesState');

/** The Solana nonce pool's workflow: how often it checks the pool, and when it sweeps accounts left held. */
export interface SolanaNoncePoolInput {
  /** Between two refills (each does nothing unless the pool is short). */
  checkIntervalMs: number;
  /** Between two sweeps: longer than the ledger's finality, so a sweep finds the advance the last one sent. */
  sweepIntervalMs: number;
  /** An account still held this long after its attestation's expiry is swept. */
  sweepPastExpiryMs: number;
}

export interface SolanaNoncePoolState {
  /** When the next sweep is due (workflow time, epoch ms). */
  nextSweepAt: number;
  /** The last refill's outcome (`enough`, `added`, `unfunded`, …, or `failed` when the activity failed). */
  lastRefill: string | null;
}

export const solanaNoncePoolStateQuery = defineQuery<SolanaNoncePoolState>('solanaNoncePoolState');

/** The delivery workflow of one webhook endpoint (`webhook-endpoint-<endpointId>`). */
export interface WebhookEndpointWorkflowInput {
  endpointId: string;
}

/** The endpoint has new deliveries (or one replayed, or it was enabled again): deliver what is due now. */
export const webhookDeliveriesDueSignal = defineSignal('webhookDeliveriesDue');

/** What one round of `deliverDueWebhooks` did, and when the endpoint has work next. */
export interface WebhookDeliveryRound {
  delivered: number;
  failed: number;
  /** Epoch ms of the earliest pending delivery's next attempt; null when none is pending. */
  nextDueAt: number | null;
  /** `deleted`: the endpoint is gone, its workflow ends. */
  endpoint: 'enabled' | 'disabled' | 'deleted';
}
