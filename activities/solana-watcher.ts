/**
 * The Solana chain watcher's activity: one `scanChain` for `solana-900` is one poll of the ledger over JSON-RPC.
 * 1. The confirmed and finalized slots; the issuer's signatures newer than the stored one (getSignaturesForAddress at
 *    `confirmed`, `until` the stored signature, paged with `before`): every attestation transaction carries the
 *    issuer's signature (nonce authority, mint authority or treasury owner).
 * 2. Each one that succeeded (err null) and whose memo names an attestation of ours (`attestation:<id>`) is read
 *    (getTransaction at `confirmed`) and kept only if its message is byte for byte the one the issuer signed for that
 *    attestation (the message of its stored `additionalData`): the mint, amounts, user, nonce and memo are the
 *    attestation's. A transaction that failed on chain is not an execution: its attestation stays outstanding.
 * 3. The executions recorded `seen` at or below the finalized slot are asked for again (getSignatureStatuses with
 *    history): each must be finalized in the slot and block it was seen in before it is made final. One that is not
 *    there any more — a confirmed slot the cluster dropped; the local ledger never drops one — halts the watcher for
 *    an operator (nothing final was done for it; `reanchor` undoes what is not final and reads the history again).
 * 4. In one transaction, as the EVM watchers record logs (db/queries/chain-observations.ts): each execution `seen`
 *    (its attestation `executing`) or `final` at once when its slot is finalized already (`executed`, the hedge
 *    obligation written), the seen ones up to the finalized slot made final, the cursor (slots, the newest
 *    signature). The slot is the block number, its blockhash (getBlock) the block hash, the signature the tx hash,
 *    0 the log index; quantity and price are in 18 decimals as on the EVM chains (the tokens the transaction minted
 *    or burned, the attested price).
 * 5. The outbox delivered (chain-outbox.ts): attestation workflows, hedging workflows.
 * Exactly once: every record is keyed by the signature (a Solana transaction lands once: the ledger refuses a
 * signature it has seen and the durable nonce moves with it), statements are idempotent, and the cursor is written in
 * the same transaction, under its lock, only by the poll that read from it — a retried, restarted or overlapping poll
 * records nothing twice.
 */
import { Context } from '@temporalio/activity';
import { createSolanaRpc, getTransactionDecoder, signature as toSignature, type Address, type Signature } from '@solana/kit';
import type { SolanaContext } from '../chains/solana-context';
import { inTransaction } from '../db/pool';
import { promoteFinal, recordObservedExecutions, rewindChain, type ObservedExecution } from '../db/queries/chain-observations';
import { haltChainWatcher, lockWatcherCursor, readWatcherCursor, recordWatcherError, recordWatcherProgress, resumeChainWatcher } from '../db/queries/chain-watcher';
import { ensureSolanaCursor, readLastSignature, recordLastSignature, seenExecutionsAtOrBelow, solanaAttestations, type SolanaWatchedAttestation } from '../db/queries/solana-watcher';
import { Decimal, Rounding, toScaledInteger } from '../domain/money';
import { chainScanErrors, chainScanStepSeconds } from '../metrics/metrics';
import { base64ToBytes } from '../signing/base64';
import { QUOTE_SIDE } from '../signing/quote';
import { solanaAttestationAmounts } from '../signing/solana-transaction';
import { chainWatcherHaltTypes, type ChainWatcherHalt, type ChainWatcherResume } from '../temporal/messages';
import { createChainOutboxDelivery, type ChainOutboxDependencies } from './chain-outbox';
import { haltFailure, type ScanChainResult } from './chain-watcher';

/** What the outbox delivery needs (the database, Temporal, the hedges' window), and the ledger with the issuer's accounts. */
export interface SolanaWatcherActivityDependencies extends ChainOutboxDependencies {
  solana: SolanaContext;
  /** The chain's named id (`solana-900`). */
  chain: string;
  /** ATTESTATION_SETTLEMENT_GRACE_MS: an attestation whose execution is undone after expiry + grace is expired. */
  settlementGraceMs: number;
}

/** getSignaturesForAddress answers at most this many a call. */
const SIGNATURES_PAGE = 1000;
const TOKEN_SCALE = 18;

/** The attestation id a memo names, as getSignaturesForAddress lists memos (`[length] text`, joined by `; `). */
export function attestationIdOfMemo(memo: string | null): string | undefined {
  for (const part of (memo ?? '').split('; ')) {
    const match = /^(?:\[\d+\] )?attestation:(\d{1,39})$/.exec(part);
    if (match) return match[1];
  }
  return undefined;
}

class SolanaHalt extends Error {
  constructor(readonly halt: ChainWatcherHalt) {
    super(halt.message);
  }
}

const messageOf = (wire: Uint8Array): Uint8Array => Uint8Array.from(getTransactionDecoder().decode(wire).messageBytes);
const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, index) => byte === b[index]);

export function createSolanaWatcherActivities(deps: SolanaWatcherActivityDependencies) {
  const { db, solana, chain } = deps;
  const rpc = createSolanaRpc(solana.rpcUrl);
  const deliver = createChainOutboxDelivery(deps);
  const timing = (step: 'read' | 'record' | 'deliver') => chainScanStepSeconds.startTimer({ chain, step });

  /** The issuer's signatures newer than `until`, oldest first. */
  async function signaturesSince(until: string | null) {
    const entries = [];
    let before: Signature | undefined;
    for (;;) {
      const page = await rpc
        .getSignaturesForAddress(solana.issuer as Address, { commitment: 'confirmed', limit: SIGNATURES_PAGE, ...(until ? { until: toSignature(until) } : {}), ...(before ? { before } : {}) })
        .send();
      entries.push(...page);
      if (page.length < SIGNATURES_PAGE) return entries.reverse();
      before = page.at(-1)!.signature;
    }
  }

  /** The execution a transaction is, if it is the one the issuer signed for `attestation`. */
  function executionOf(
    attestation: SolanaWatchedAttestation,
    found: { signature: string; slot: number; blockhash: string; blockTime: number; wire: Uint8Array; final: boolean },
  ): ObservedExecution | 'not the attestation' {
    if (!equalBytes(messageOf(found.wire), messageOf(base64ToBytes(attestation.additionalData)))) return 'not the attestation';
    const price = toScaledInteger(attestation.price, TOKEN_SCALE, Rounding.DOWN);
    const { tokens } = solanaAttestationAmounts({
      side: attestation.side === 'buy' ? QUOTE_SIDE.buy : QUOTE_SIDE.sell,
      price,
      quantity: toScaledInteger(attestation.tokenAmount, TOKEN_SCALE, Rounding.DOWN),
      stockDecimals: solana.tokenDecimals,
      stablecoinDecimals: solana.stablecoinDecimals,
    });
    return {
      txHash: found.signature as `0x${string}`,
      logIndex: 0,
      blockNumber: found.slot,
      blockHash: found.blockhash as `0x${string}`,
      executionId: attestation.attestationId,
      attestationId: attestation.attestationId,
      userId: attestation.userId as `0x${string}`,
      side: attestation.side,
      asset: attestation.assetAddress as `0x${string}`,
      price: price.toString(),
      quantity: new Decimal(tokens.toString()).times(new Decimal(10).pow(TOKEN_SCALE - solana.tokenDecimals)).toFixed(),
      executedAt: found.blockTime * 1000,
      final: found.final,
    };
  }

  /** The blockhash of a slot the watcher read a transaction in (getBlock, at confirmed). */
  async function blockhashOf(slot: number): Promise<string> {
    const block = await rpc.getBlock(BigInt(slot), { commitment: 'confirmed', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 }).send();
    if (!block) throw new Error(`${chain}: the ledger has no block for slot ${slot}, where it lists a transaction`);
    return block.blockhash;
  }

  function halted(message: string, where: { slot: number; blockhash: string | null; signature: string | null }): SolanaHalt {
    return new SolanaHalt({
      type: chainWatcherHaltTypes.logUnprocessable,
      chain,
      message: `${chain}: ${message}`,
      blockNumber: where.slot,
      blockHash: where.blockhash ?? '',
      txHash: where.signature,
      logIndex: where.signature === null ? null : 0,
      at: Date.now(),
    });
  }

  async function poll(): Promise<ScanChainResult> {
    const endRead = timing('read');
    const from = await readLastSignature(db, chain);
    const cursor = (await readWatcherCursor(db, chain))!;
    const [confirmed, finalized] = (await Promise.all([rpc.getSlot({ commitment: 'confirmed' }).send(), rpc.getSlot({ commitment: 'finalized' }).send()])).map(Number) as [number, number];
    const entries = await signaturesSince(from);
    const named = entries.filter((entry) => entry.err === null && attestationIdOfMemo(entry.memo) !== undefined);
    const attestations = await solanaAttestations(db, chain, named.map((entry) => attestationIdOfMemo(entry.memo)!));
    const executions: ObservedExecution[] = [];
    for (const entry of named) {
      const attestation = attestations.get(attestationIdOfMemo(entry.memo)!);
      if (!attestation) continue;
      const found = await rpc.getTransaction(entry.signature, { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
      if (!found || found.meta?.err !== null) continue;
      const slotOf = Number(found.slot);
      const blockhash = await blockhashOf(slotOf);
      const execution = executionOf(attestation, {
        signature: entry.signature,
        slot: slotOf,
        blockhash,
        blockTime: Number(found.blockTime ?? entry.blockTime ?? Math.floor(Date.now() / 1000)),
        wire: base64ToBytes(found.transaction[0]),
        final: entry.confirmationStatus === 'finalized',
      });
      if (execution === 'not the attestation') {
        throw halted(`the issuer signed ${entry.signature} naming attestation ${attestation.attestationId}, but it is not that attestation's transaction`, { slot: slotOf, blockhash, signature: entry.signature });
      }
      executions.push(execution);
    }

    // What was seen at confirmed is made final only once found finalized where it was seen.
    let finalTo = finalized;
    const seen = await seenExecutionsAtOrBelow(db, chain, finalized);
    if (seen.length > 0) {
      const { value: statuses } = await rpc.getSignatureStatuses(seen.map((row) => toSignature(row.txHash)), { searchTransactionHistory: true }).send();
      for (const [index, row] of seen.entries()) {
        const status = statuses[index];
        const now = !status
          ? 'no longer on the ledger'
          : status.err !== null
            ? 'failed'
            : Number(status.slot) !== row.blockNumber
              ? `in slot ${status.slot}`
              : status.confirmationStatus === 'finalized' && (await blockhashOf(row.blockNumber)) !== row.blockHash
                ? 'in a block of another hash'
                : undefined;
        if (!status || now) {
          throw halted(`the execution ${row.txHash} seen confirmed in slot ${row.blockNumber} (${row.blockHash}) is ${now} now: a confirmed slot was dropped`, {
            slot: row.blockNumber,
            blockhash: row.blockHash,
            signature: row.txHash,
          });
        }
        if (status.confirmationStatus !== 'finalized') finalTo = Math.min(finalTo, row.blockNumber - 1);
      }
    }
    endRead();

    const endRecord = timing('record');
    const newest = entries.at(-1)?.signature ?? from;
    const recorded = await inTransaction(db, async (tx) => {
      const locked = await lockWatcherCursor(tx, chain);
      // Another poll recorded from this cursor first (a timed-out attempt still running): leave it to that one.
      if (!locked || locked.status !== 'ok' || (await readLastSignature(tx, chain)) !== from) return undefined;
      const count = await recordObservedExecutions(tx, chain, executions);
      await promoteFinal(tx, chain, finalTo);
      await recordWatcherProgress(tx, chain, { nextBlock: confirmed + 1, seenHead: confirmed, finalBlock: finalTo });
      await recordLastSignature(tx, chain, newest);
      return count;
    });
    endRecord();
    const endDeliver = timing('deliver');
    const delivered = await deliver(chain);
    endDeliver();
    return {
      chain,
      fromBlock: cursor.nextBlock,
      toBlock: recorded === undefined ? cursor.nextBlock - 1 : confirmed,
      head: confirmed,
      finalBlock: Math.max(finalTo, cursor.finalBlock ?? -1),
      executions: recorded ?? 0,
      redemptions: 0,
      rewound: null,
      delivered,
      caughtUp: recorded !== undefined,
    };
  }

  return {
    /** One poll of the Solana ledger; see the module header. */
    async scanChain(): Promise<ScanChainResult> {
      await ensureSolanaCursor(db, chain);
      const cursor = (await readWatcherCursor(db, chain))!;
      const { log, info } = Context.current();
      if (cursor.status === 'halted') {
        const halt = cursor.lastError as ChainWatcherHalt;
        log.error('chain watcher halted', { ...halt });
        throw haltFailure(halt);
      }
      if (info.attempt > 3) log.warn('chain scan keeps failing', { chain, attempt: info.attempt, rpcUrl: solana.rpcUrl });
      try {
        return await poll();
      } catch (error) {
        chainScanErrors.inc({ chain });
        if (error instanceof SolanaHalt) {
          await haltChainWatcher(db, chain, error.halt);
          log.error('chain watcher halted', { ...error.halt });
          throw haltFailure(error.halt);
        }
        await recordWatcherError(db, chain, error instanceof Error ? error.message : String(error)).catch(() => undefined);
        throw error;
      }
    },

    /**
     * An operator's resume. `reanchor` (after a confirmed slot was dropped): what is not final is undone (executions
     * orphaned, attestations outstanding again) and the issuer's history read again from the start, so what is still
     * on the ledger is recorded again and what left it stays undone.
     */
    async resumeChainWatcher(input: ChainWatcherResume): Promise<void> {
      await inTransaction(db, async (tx) => {
        const cursor = await lockWatcherCursor(tx, chain);
        if (input.reanchor && cursor) {
          await rewindChain(tx, { chain, ancestor: Math.max(cursor.finalBlock ?? 0, 0), settlementGraceMs: deps.settlementGraceMs, now: Date.now(), dropWindow: true });
          await recordLastSignature(tx, chain, null);
        }
        await resumeChainWatcher(tx, chain);
      });
      await deliver(chain);
    },
  };
}

export type SolanaWatcherActivities = ReturnType<typeof createSolanaWatcherActivities>;
