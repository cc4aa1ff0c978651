/**
 * The chain watcher's one activity: scan the token manager and the issuer contract of one chain from the cursor
 * up to the head less the confirmation depth, in one bounded block range, and hand every log on — TradeExecuted
 * to SQL and to `attestation-<id>`, IssuerRedeem to its own `redemption-<chainId>-<txHash>-<logIndex>` workflow —
 * then move the cursor past the range. Everything it does is idempotent, so a retry, a restart or an operator
 * resetting the cursor re-handles a range without a second execution or redemption.
 */
import { Context } from '@temporalio/activity';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { getAddress, type Log } from 'viem';
import { tokenManagerAbi, issuerAbi } from '../contracts/abi';
import type { ChainContexts } from '../chains/context';
import type { Database } from '../db/pool';
import { forEachConcurrently } from '../domain/concurrency';
import { advanceChainCursor, findChainDeployment, readChainCursor, recordTradeExecutions, type TradeExecutionRecord } from '../db/queries/chains';
import type { EvmChain } from '../signing';
import { attestationExecutedSignal, type RedemptionInput } from '../temporal/messages';
import { attestationWorkflowId, redemptionWorkflowId } from '../temporal/workflow-ids';
import type { redemptionWorkflow } from '../workflows';

export interface ChainWatcherActivityDependencies {
  db: Database;
  chains: ChainContexts;
  temporal: Client;
  taskQueue: string;
  /** Blocks a log must be buried under before it is handled. */
  confirmations: number;
  /** Largest block range per scan. */
  blockRange: number;
}

export interface ScanChainResult {
  chain: string;
  fromBlock: number;
  /** Inclusive; fromBlock - 1 when nothing was due. */
  toBlock: number;
  head: number;
  executions: number;
  redemptions: number;
  /** Nothing left to scan below the confirmed head. */
  caughtUp: boolean;
}

/** `ApplicationFailure` types of the chain activities; all non-retryable. */
export const chainFailureTypes = {
  notDeployed: 'CHAIN_NOT_DEPLOYED',
  unknownChain: 'UNKNOWN_CHAIN',
  notConfigured: 'CHAINS_NOT_CONFIGURED',
} as const;

/** Signals and workflow starts in flight at once while handing a range's logs on. */
const DELIVERY_CONCURRENCY = 32;

type Located<T> = T & { txHash: `0x${string}`; logIndex: number; blockNumber: number; blockTime: number };

function located(log: Log, blockTimes: Map<bigint, number>) {
  return {
    txHash: log.transactionHash!,
    logIndex: log.logIndex!,
    blockNumber: Number(log.blockNumber!),
    blockTime: blockTimes.get(log.blockNumber!)!,
  };
}

export function createChainWatcherActivities(deps: ChainWatcherActivityDependencies) {
  const { db, temporal, taskQueue } = deps;

  async function signalExecution(execution: TradeExecutionRecord): Promise<void> {
    try {
      await temporal.workflow.getHandle(attestationWorkflowId(execution.attestationId)).signal(attestationExecutedSignal, {
        txHash: execution.txHash,
        executedAt: execution.executedAt,
        blockNumber: execution.blockNumber,
        logIndex: execution.logIndex,
      });
    } catch (error) {
      // Settled (or never started): SQL already holds the execution, reconciled from `expired` if need be.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }

  async function startRedemption(chainId: number, redemption: RedemptionInput): Promise<void> {
    try {
      await temporal.workflow.start<typeof redemptionWorkflow>('redemptionWorkflow', {
        workflowId: redemptionWorkflowId(chainId, redemption.txHash, redemption.logIndex),
        taskQueue,
        args: [redemption],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      // A second start of the same redemption is a known outcome: one workflow per log.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  return {
    /** Scans one bounded range of one chain and hands its logs on; see the module header. */
    async scanChain(input: { chain: string }): Promise<ScanChainResult> {
      const context = deps.chains[input.chain as EvmChain];
      if (!context) {
        throw ApplicationFailure.create({ type: chainFailureTypes.unknownChain, message: `no RPC configured for ${input.chain}`, nonRetryable: true });
      }
      const deployment = await findChainDeployment(db, input.chain);
      const fromBlock = await readChainCursor(db, input.chain);
      if (!deployment || fromBlock === undefined) {
        throw ApplicationFailure.create({ type: chainFailureTypes.notDeployed, message: `no contracts recorded for ${input.chain}`, nonRetryable: true });
      }
      const attempt = Context.current().info.attempt;
      if (attempt > 3) Context.current().log.warn('chain scan keeps failing', { chain: input.chain, attempt, rpcUrl: context.network.rpcUrl });

      const { client, network } = context;
      const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
      const confirmedHead = head - deps.confirmations;
      if (fromBlock > confirmedHead) {
        return { chain: input.chain, fromBlock, toBlock: fromBlock - 1, head, executions: 0, redemptions: 0, caughtUp: true };
      }
      const toBlock = Math.min(confirmedHead, fromBlock + deps.blockRange - 1);
      const range = { fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock), strict: true } as const;
      const [trades, redeems] = await Promise.all([
        client.getContractEvents({ address: deployment.tokenManager, abi: tokenManagerAbi, eventName: 'TradeExecuted', ...range }),
        client.getContractEvents({ address: deployment.issuer, abi: issuerAbi, eventName: 'IssuerRedeem', ...range }),
      ]);
      const blockNumbers = [...new Set([...trades, ...redeems].map((log) => log.blockNumber!))];
      const blocks = await Promise.all(blockNumbers.map((blockNumber) => client.getBlock({ blockNumber })));
      const blockTimes = new Map(blocks.map((block) => [block.number!, Number(block.timestamp) * 1000]));

      const executions: TradeExecutionRecord[] = trades.map((log) => {
        const { txHash, logIndex, blockNumber, blockTime } = located(log, blockTimes);
        return {
          chain: input.chain,
          txHash,
          logIndex,
          blockNumber,
          executionId: log.args.executionId!.toString(),
          attestationId: log.args.attestationId!.toString(),
          userId: log.args.userId!,
          side: log.args.side === 0 ? 'buy' : 'sell',
          asset: getAddress(log.args.asset!),
          price: log.args.price!.toString(),
          quantity: log.args.quantity!.toString(),
          executedAt: blockTime,
        };
      });
      await recordTradeExecutions(db, executions);
      await forEachConcurrently(executions, DELIVERY_CONCURRENCY, signalExecution);

      const redemptions: Located<RedemptionInput>[] = redeems.map((log) => ({
        chain: input.chain,
        ...located(log, blockTimes),
        wallet: log.args.wallet!.toLowerCase(),
        userId: log.args.userId!,
        token: getAddress(log.args.token!),
        amount: log.args.amount!.toString(),
        usdNotional: log.args.usdNotional!.toString(),
      }));
      await forEachConcurrently(redemptions, DELIVERY_CONCURRENCY, (redemption) => startRedemption(network.chainId, redemption));

      await advanceChainCursor(db, input.chain, toBlock + 1);
      return {
        chain: input.chain,
        fromBlock,
        toBlock,
        head,
        executions: executions.length,
        redemptions: redemptions.length,
        caughtUp: toBlock >= confirmedHead,
      };
    },
  };
}

export type ChainWatcherActivities = ReturnType<typeof createChainWatcherActivities>;
