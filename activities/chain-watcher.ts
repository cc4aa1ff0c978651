/**
 * The chain watcher's activities. One `scanChain` is one poll of one chain:
 * 1. the head and the final block under the chain's finality rule;
 * 2. the stored tip checked against the chain; on a mismatch, the stored window walked back to the common ancestor
 *    and everything seen above it undone in one transaction (nothing final may lie there: a reorganisation that
 *    reaches the last final block halts the watcher);
 * 3. the next bounded range scanned: TradeExecuted and IssuerRedeem logs, the Transfer logs of the product's tokens
 *    (the balances `GET /v1/chains/{chainId}/balances` answers), the headers of its blocks that are not
 *    final, each log checked against its block's hash and each block against its parent (the chain moving under the
 *    scan abandons the poll);
 * 4. logs recorded `seen` (or `final` at once), blocks, promotions to `final`, the cursor: one transaction;
 * 5. the outbox delivered (`chain-outbox.ts`): attestation workflows told of executions seen, orphaned and final,
 *    hedging workflows woken, redemption workflows started once a burn is final.
 * Everything is idempotent and keyed by what the chain says a log is (block hash, tx hash, log index), so a retry, a
 * restart or an operator resetting the cursor re-handles a range without a second execution or redemption.
 * A poll's time in each step is kept per chain in `issuer_chain_scan_step_seconds`: `read` (1–3, the chain over RPC),
 * `record` (the transaction of 4, or of 2's undo), `deliver` (5).
 */
import { chainReorganisations, chainReorganisedBlocks, chainScanErrors, chainScanStepSeconds, type ChainScanStep } from '../metrics/metrics';
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { getAddress, type Log, type PublicClient } from 'viem';
import { issuerAbi, stockTokenAbi, tokenManagerAbi } from '../contracts/abi';
import type { ChainContext, ChainContexts } from '../chains/context';
import { describeFinality, finalBlockNumber, headerOf, type BlockHeader } from '../chains/finality';
import { publicClientFor } from '../chains/networks';
import { inTransaction, type Database } from '../db/pool';
import { chainTokenAddresses, chainTokensByAddress, findChainDeployment, type ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { conflictingLogs, firstFinalLogAbove, promoteFinal, recordObservedExecutions, recordObservedRedemptions, rewindChain, type ObservedExecution, type ObservedRedemption } from '../db/queries/chain-observations';
import { recordObservedTransfers, type ObservedTransfer } from '../db/queries/token-transfers';
import { haltChainWatcher, loadChainWindow, lockWatcherCursor, readWatcherCursor, recordWatcherError, recordWatcherProgress, resumeChainWatcher, storeChainBlocks, type WatcherCursor } from '../db/queries/chain-watcher';
import type { EvmChain } from '../signing';
import { chainFailureTypes, chainWatcherHaltTypes, type ChainWatcherHalt, type ChainWatcherResume, type ChainWatcherState } from '../temporal/messages';
import { redemptionWorkflowId } from '../temporal/workflow-ids';
import { createChainOutboxDelivery } from './chain-outbox';

export interface ChainWatcherActivityDependencies {
  db: Database;
  chains: ChainContexts;
  temporal: Client;
  taskQueue: string;
  /** Largest block range per scan. */
  blockRange: number;
  /** ATTESTATION_SETTLEMENT_GRACE_MS: an attestation whose execution leaves the chain after expiry + grace is expired. */
  settlementGraceMs: number;
  /** HEDGE_WINDOW_MS: the netting window of the hedging workflows it starts. */
  hedgeWindowMs: number;
}

export interface ScanChainResult {
  chain: string;
  fromBlock: number;
  /** Inclusive; fromBlock - 1 when nothing was scanned. */
  toBlock: number;
  head: number;
  /** The last final block acted on (-1 while the chain has none). */
  finalBlock: number;
  executions: number;
  redemptions: number;
  /** A reorganisation this poll undid (the next poll scans the new blocks). */
  rewound: Omit<NonNullable<ChainWatcherState['lastReorg']>, 'at'> | null;
  /** Outbox messages delivered. */
  delivered: number;
  /** Nothing left to scan up to the head: the next poll can wait. */
  caughtUp: boolean;
}

/** The chain said something the watcher must not act on: it halts, loudly, until an operator resumes it. */
class ChainHaltError extends Error {
  constructor(readonly halt: ChainWatcherHalt) {
    super(halt.message);
  }
}

/** The chain moved while the poll read it (a block or a log from another fork): the poll is abandoned and run again. */
class ChainMovedError extends Error {}

/** The failure a halted watcher's scan ends with: not retried, the halt in its details for the workflow to show. */
export function haltFailure(halt: ChainWatcherHalt): ApplicationFailure {
  return ApplicationFailure.create({ type: halt.type, message: halt.message, nonRetryable: true, details: [halt] });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

export function createChainWatcherActivities(deps: ChainWatcherActivityDependencies) {
  const { db } = deps;
  const deliverOutbox = createChainOutboxDelivery(deps);
  /** Starts timing one step of a poll (`issuer_chain_scan_step_seconds`); the answer ends it. */
  const timing = (chain: string, step: ChainScanStep) => chainScanStepSeconds.startTimer({ chain, step });
  const deliver = async (chain: string): Promise<number> => {
    const endDelivery = timing(chain, 'deliver');
    const count = await deliverOutbox(chain);
    endDelivery();
    return count;
  };
  // Block headers are asked for many at a time: one JSON-RPC batch per poll.
  const batchClients = new Map<string, PublicClient>();
  const readerOf = (context: ChainContext): PublicClient => {
    let client = batchClients.get(context.network.chain);
    if (!client) batchClients.set(context.network.chain, (client = publicClientFor(context.network, { batch: true })));
    return client;
  };

  function contextOf(chain: string): ChainContext {
    const context = deps.chains[chain as EvmChain];
    if (!context) throw ApplicationFailure.create({ type: chainFailureTypes.unknownChain, message: `no RPC configured for ${chain}`, nonRetryable: true });
    return context;
  }

  async function watched(chain: string): Promise<{ deployment: ChainDeploymentRecord; cursor: WatcherCursor }> {
    const [deployment, cursor] = await Promise.all([findChainDeployment(db, chain), readWatcherCursor(db, chain)]);
    if (!deployment || !cursor) {
      throw ApplicationFailure.create({ type: chainFailureTypes.notDeployed, message: `no contracts recorded for ${chain}`, nonRetryable: true });
    }
    return { deployment, cursor };
  }

  async function headers(client: PublicClient, numbers: number[]): Promise<Map<number, BlockHeader>> {
    const blocks = await Promise.all(numbers.map((number) => client.getBlock({ blockNumber: BigInt(number) })));
    return new Map(blocks.map((block) => [Number(block.number), headerOf(block)]));
  }

  /**
   * Compares the stored window with the chain. `behind`: the node's head is below the stored tip and agrees with
   * what it has (a lagging node; wait). A mismatch is walked back to the highest stored block the chain still has.
   */
  async function checkWindow(client: PublicClient, chain: string, window: BlockHeader[], head: BlockHeader): Promise<{ kind: 'ok' | 'behind' } | { kind: 'reorg'; ancestor: BlockHeader; tip: BlockHeader }> {
    const tip = window.at(-1);
    if (!tip) return { kind: 'ok' };
    const compareAt = Math.min(tip.number, head.number);
    const stored = window.find((block) => block.number === compareAt);
    // The node's head is below the last final block: it is far behind (or the chain lost final blocks: the next poll with a higher head tells).
    if (!stored) return { kind: 'behind' };
    const canonical = compareAt === head.number ? head : (await headers(client, [compareAt])).get(compareAt)!;
    if (canonical.hash === stored.hash) return { kind: head.number < tip.number ? 'behind' : 'ok' };
    const candidates = window.filter((block) => block.number <= head.number);
    const onChain = await headers(client, candidates.map((block) => block.number));
    const ancestor = candidates.reverse().find((block) => onChain.get(block.number)?.hash === block.hash);
    if (!ancestor) {
      const anchor = window[0]!;
      throw new ChainHaltError({
        type: chainWatcherHaltTypes.reorgTooDeep,
        chain,
        message:
          `${chain}: a reorganisation replaced block ${anchor.number} (${anchor.hash}, now ${onChain.get(anchor.number)?.hash ?? 'absent'}), ` +
          `the last final block the watcher acted on: deeper than its window of ${window.length} blocks (${anchor.number}–${tip.number})`,
        blockNumber: anchor.number,
        blockHash: anchor.hash,
        txHash: null,
        logIndex: null,
        at: Date.now(),
      });
    }
    return { kind: 'reorg', ancestor, tip };
  }

  /** A log the watcher cannot record: it halts naming it rather than skip it or retry forever. */
  function unprocessable(chain: string, log: { blockNumber: number; blockHash: string; txHash: string; logIndex: number }, why: string): ChainHaltError {
    return new ChainHaltError({
      type: chainWatcherHaltTypes.logUnprocessable,
      chain,
      message: `${chain}: cannot process the log ${log.txHash}#${log.logIndex} in block ${log.blockNumber} (${log.blockHash}): ${why}`,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      txHash: log.txHash,
      logIndex: log.logIndex,
      at: Date.now(),
    });
  }

  async function poll(chain: string, context: ChainContext, deployment: ChainDeploymentRecord, cursor: WatcherCursor): Promise<ScanChainResult> {
    const client = readerOf(context);
    const endRead = timing(chain, 'read');
    const head = headerOf(await client.getBlock({ blockTag: 'latest' }));
    const finalBlock = await finalBlockNumber(client, context.finality, head.number);
    const fromBlock = cursor.nextBlock;
    const idle = { chain, fromBlock, toBlock: fromBlock - 1, head: head.number, finalBlock: cursor.finalBlock ?? -1, executions: 0, redemptions: 0, rewound: null };

    const window = await loadChainWindow(db, chain);
    const checked = await checkWindow(client, chain, window, head);
    if (checked.kind === 'behind') {
      endRead();
      return { ...idle, delivered: await deliver(chain), caughtUp: true };
    }
    if (checked.kind === 'reorg') {
      const { ancestor, tip } = checked;
      endRead();
      const endRecord = timing(chain, 'record');
      const undone = await inTransaction(db, async (tx) => {
        const locked = await lockWatcherCursor(tx, chain);
        if (!locked || locked.status !== 'ok' || locked.nextBlock !== fromBlock) return undefined;
        const final = await firstFinalLogAbove(tx, chain, ancestor.number);
        if (final) {
          throw new ChainHaltError({
            type: chainWatcherHaltTypes.reorgTooDeep,
            chain,
            message: `${chain}: a reorganisation back to block ${ancestor.number} would undo the final ${final.kind} ${final.txHash}#${final.logIndex} in block ${final.blockNumber} (${final.blockHash})`,
            blockNumber: final.blockNumber,
            blockHash: final.blockHash,
            txHash: final.txHash,
            logIndex: final.logIndex,
            at: Date.now(),
          });
        }
        return await rewindChain(tx, { chain, ancestor: ancestor.number, settlementGraceMs: deps.settlementGraceMs, now: Date.now() });
      });
      endRecord();
      const rewound = undone && {
        ancestor: ancestor.number,
        replacedBlocks: tip.number - ancestor.number,
        executionsOrphaned: undone.executionsOrphaned,
        redemptionsCancelled: undone.redemptionsCancelled,
      };
      if (rewound) {
        chainReorganisations.inc({ chain });
        chainReorganisedBlocks.inc({ chain }, rewound.replacedBlocks);
      }
      if (rewound) Context.current().log.warn('chain reorganisation undone', { ...rewound, chain, ancestorHash: ancestor.hash, replacedTip: tip.hash });
      return { ...idle, rewound: rewound ?? null, delivered: await deliver(chain), caughtUp: false };
    }

    const toBlock = Math.min(head.number, fromBlock + deps.blockRange - 1);
    let executions: ObservedExecution[] = [];
    let redemptions: ObservedRedemption[] = [];
    let transfers: ObservedTransfer[] = [];
    let scanned: BlockHeader[] = [];
    if (fromBlock <= toBlock) {
      // Headers of the blocks that are not final (and of the last final one, the anchor), plus the first and last of the range.
      const storedFrom = Math.max(fromBlock, Math.min(finalBlock, toBlock));
      const logRange = { fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock), strict: true } as const;
      const tokenAddresses = Object.values(await chainTokenAddresses(db, chain));
      const [known, trades, redeems, moves] = await Promise.all([
        headers(client, [...new Set([fromBlock, ...range(storedFrom, toBlock)])]),
        client.getContractEvents({ address: deployment.tokenManager, abi: tokenManagerAbi, eventName: 'TradeExecuted', ...logRange }),
        client.getContractEvents({ address: deployment.issuer, abi: issuerAbi, eventName: 'IssuerRedeem', ...logRange }),
        tokenAddresses.length === 0 ? [] : client.getContractEvents({ address: tokenAddresses, abi: stockTokenAbi, eventName: 'Transfer', ...logRange }),
      ]);
      const logs: Log[] = [...trades, ...redeems, ...moves];
      const missing = [...new Set(logs.map((log) => Number(log.blockNumber)))].filter((number) => !known.has(number));
      for (const [number, header] of await headers(client, missing)) known.set(number, header);

      const previous = window.find((block) => block.number === fromBlock - 1);
      if (previous && known.get(fromBlock)!.parentHash !== previous.hash) throw new ChainMovedError(`block ${fromBlock} does not follow the stored ${fromBlock - 1}`);
      for (const number of range(storedFrom + 1, toBlock)) {
        if (known.get(number)!.parentHash !== known.get(number - 1)!.hash) throw new ChainMovedError(`block ${number} does not follow ${number - 1}`);
      }
      for (const log of logs) {
        if (log.removed || log.blockHash !== known.get(Number(log.blockNumber))!.hash) throw new ChainMovedError(`a log of block ${log.blockNumber} is from another fork`);
      }

      const where = (log: Log) => ({ txHash: log.transactionHash!, logIndex: log.logIndex!, blockNumber: Number(log.blockNumber), blockHash: log.blockHash! });
      executions = trades.map((log) => {
        const location = where(log);
        if (log.args.side !== 0 && log.args.side !== 1) throw unprocessable(chain, location, `side ${log.args.side} is neither buy (0) nor sell (1)`);
        return {
          ...location,
          executionId: log.args.executionId!.toString(),
          attestationId: log.args.attestationId!.toString(),
          userId: log.args.userId!,
          side: log.args.side === 0 ? 'buy' : 'sell',
          asset: getAddress(log.args.asset!),
          price: log.args.price!.toString(),
          quantity: log.args.quantity!.toString(),
          executedAt: known.get(location.blockNumber)!.timestamp,
          final: location.blockNumber <= finalBlock,
        };
      });
      const tokens = redeems.length > 0 ? await chainTokensByAddress(db, chain) : new Map<string, { symbol: string; ticker: string }>();
      redemptions = redeems.map((log) => {
        const location = where(log);
        if (log.args.amount! <= 0n) throw unprocessable(chain, location, 'a burn of no tokens');
        const token = tokens.get(log.args.token!.toLowerCase());
        return {
          ...location,
          redemptionId: redemptionWorkflowId(context.network.chainId, location.txHash, location.logIndex),
          blockTime: known.get(location.blockNumber)!.timestamp,
          wallet: log.args.wallet!.toLowerCase() as `0x${string}`,
          userId: log.args.userId!,
          token: getAddress(log.args.token!),
          symbol: token?.symbol ?? null,
          // A burn of a token that is not the product's still gets a request, for an operator to look at.
          underlyingSymbol: token?.ticker ?? 'UNKNOWN',
          tokenSymbol: token?.symbol ?? 'UNKNOWN',
          amount: log.args.amount!.toString(),
          usdNotional: log.args.usdNotional!.toString(),
          final: location.blockNumber <= finalBlock,
        };
      });
      transfers = moves.map((log) => ({
        ...where(log),
        token: log.address.toLowerCase() as `0x${string}`,
        sender: log.args.from!.toLowerCase() as `0x${string}`,
        recipient: log.args.to!.toLowerCase() as `0x${string}`,
        amount: log.args.value!.toString(),
        final: Number(log.blockNumber) <= finalBlock,
      }));
      scanned = range(storedFrom, toBlock).map((number) => known.get(number)!);
    }

    endRead();
    const promoteTo = Math.min(finalBlock, Math.max(toBlock, fromBlock - 1));
    const endRecord = timing(chain, 'record');
    const recorded = await inTransaction(db, async (tx) => {
      const locked = await lockWatcherCursor(tx, chain);
      // Another poll of this chain got there first (a timed-out attempt still running): leave it to that one.
      if (!locked || locked.status !== 'ok' || locked.nextBlock !== fromBlock) return undefined;
      const moved = await storeChainBlocks(tx, chain, scanned);
      if (moved.length > 0) throw new ChainMovedError(`blocks ${moved.join(', ')} are stored with other hashes`);
      const [conflict] = await conflictingLogs(tx, chain, { executions, redemptions, transfers });
      if (conflict) throw unprocessable(chain, conflict, `it is recorded live in another block (${conflict.recordedBlockHash}): a reorganisation was missed`);
      const newExecutions = await recordObservedExecutions(tx, chain, executions);
      const newRedemptions = await recordObservedRedemptions(tx, chain, redemptions);
      await recordObservedTransfers(tx, chain, transfers);
      if (promoteTo >= 0) await promoteFinal(tx, chain, promoteTo);
      await recordWatcherProgress(tx, chain, { nextBlock: Math.max(fromBlock, toBlock + 1), seenHead: head.number, finalBlock: promoteTo });
      return { executions: newExecutions, redemptions: newRedemptions };
    });
    endRecord();
    return {
      ...idle,
      toBlock: recorded ? Math.max(fromBlock - 1, toBlock) : fromBlock - 1,
      finalBlock: Math.max(promoteTo, cursor.finalBlock ?? -1),
      executions: recorded?.executions ?? 0,
      redemptions: recorded?.redemptions ?? 0,
      delivered: await deliver(chain),
      caughtUp: recorded !== undefined && toBlock >= head.number,
    };
  }

  return {
    /** One poll of one chain; see the module header. */
    async scanChain(input: { chain: string }): Promise<ScanChainResult> {
      const context = contextOf(input.chain);
      const { deployment, cursor } = await watched(input.chain);
      const { log, info } = Context.current();
      if (cursor.status === 'halted') {
        // Halted before (this run or an earlier one): nothing happens on this chain until an operator resumes it.
        const halt = cursor.lastError as ChainWatcherHalt;
        log.error('chain watcher halted', { ...halt });
        throw haltFailure(halt);
      }
      if (info.attempt > 3) log.warn('chain scan keeps failing', { chain: input.chain, attempt: info.attempt, rpcUrl: context.network.rpcUrl });
      try {
        return await poll(input.chain, context, deployment, cursor);
      } catch (error) {
        if (error instanceof ChainMovedError) {
          log.info('the chain moved during the scan; scanning again', { chain: input.chain, reason: error.message });
          return { chain: input.chain, fromBlock: cursor.nextBlock, toBlock: cursor.nextBlock - 1, head: -1, finalBlock: cursor.finalBlock ?? -1, executions: 0, redemptions: 0, rewound: null, delivered: 0, caughtUp: false };
        }
        chainScanErrors.inc({ chain: input.chain });
        if (error instanceof ChainHaltError) {
          await haltChainWatcher(db, input.chain, error.halt);
          log.error('chain watcher halted', { ...error.halt, finality: describeFinality(context.finality) });
          throw haltFailure(error.halt);
        }
        await recordWatcherError(db, input.chain, error instanceof Error ? error.message : String(error)).catch(() => undefined);
        throw error;
      }
    },

    /**
     * An operator's resume of a halted watcher. `reanchor` (after a reorganisation deeper than the window): forget the
     * stored hashes and undo whatever is not final, so the next scan takes the chain as it is from `fromBlock` (default:
     * the block after the last final one); final records in replaced blocks are left for the operator to reconcile.
     */
    async resumeChainWatcher(input: { chain: string } & ChainWatcherResume): Promise<void> {
      const { deployment } = await watched(input.chain);
      await inTransaction(db, async (tx) => {
        const cursor = await lockWatcherCursor(tx, input.chain);
        if (input.reanchor && cursor) {
          const afterFinal = cursor.finalBlock !== null && cursor.finalBlock >= 0 ? cursor.finalBlock + 1 : deployment.deployedBlock;
          const ancestor = Math.max(deployment.deployedBlock, Math.min(input.fromBlock ?? afterFinal, afterFinal)) - 1;
          await rewindChain(tx, { chain: input.chain, ancestor, settlementGraceMs: deps.settlementGraceMs, now: Date.now(), dropWindow: true });
        }
        await resumeChainWatcher(tx, input.chain);
      });
      await deliver(input.chain);
    },
  };
}

export type ChainWatcherActivities = ReturnType<typeof createChainWatcherActivities>;
