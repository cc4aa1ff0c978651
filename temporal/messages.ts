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

/** Reports an execution to `attestation-<id>`; only the first one at or before expiry counts. */
export const attestationExecutedSignal = defineSignal<[AttestationExecution]>('attestationExecuted');

export interface AttestationWorkflowState {
  attestationId: string;
  state: AttestationState;
  /** Epoch milliseconds. */
  expiresAt: number;
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
}

/** `ApplicationFailure` types of the attestation lifecycle (workflow and activities); all non-retryable. */
export const attestationFailureTypes = {
  /** No attestation with that id in the database. */
  notFound: 'ATTESTATION_NOT_FOUND',
  /** The attestation is already recorded as executed by another transaction. */
  executionConflict: 'ATTESTATION_EXECUTION_CONFLICT',
} as const;

export type AttestationFailureType = (typeof attestationFailureTypes)[keyof typeof attestationFailureTypes];

/** Where a chain watcher stands: its last scan. */
export interface ChainWatcherState {
  chain: string;
  /** The last range scanned and handled (inclusive), or null before the first scan. */
  lastScan: { fromBlock: number; toBlock: number; head: number; executions: number; redemptions: number; at: number } | null;
  /** Scans since this run started (continue-as-new starts over). */
  scans: number;
}

export const chainWatcherStateQuery = defineQuery<ChainWatcherState>('chainWatcherState');

export interface ChainWatcherInput {
  chain: string;
  /** How long a caught-up watcher waits before polling again. */
  pollIntervalMs: number;
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
