/**
 * The chain watcher's outbox delivered (the last step of every scan, and after an operator's resume): attestation
 * workflows told of executions seen, orphaned and final, hedging workflows woken, redemption workflows started once a
 * burn is final. Oldest first and in order per workflow; a message is deleted once delivered, so a retry or a restart
 * delivers what is left, and a message delivered again changes nothing (each workflow takes it as it did the first
 * time, a second start of a redemption is refused).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import type { Database } from '../db/pool';
import { attestationWorkflowStartPending } from '../db/queries/attestation-lifecycle';
import { deleteChainMessages, pendingChainMessages, type ChainMessage } from '../db/queries/chain-watcher';
import { forEachConcurrently } from '../domain/concurrency';
import {
  attestationExecutedSignal,
  attestationExecutionOrphanedSignal,
  attestationExecutionSeenSignal,
  type AttestationExecutionSeen,
  hedgeOwedSignal,
  type RedemptionInput,
} from '../temporal/messages';
import { LONG_LIVED_WORKFLOW_TASK_TIMEOUT } from '../temporal/long-lived';
import { attestationWorkflowId, hedgeWorkflowId } from '../temporal/workflow-ids';
import type { hedgeWorkflow } from '../workflows/hedging';
import type { redemptionWorkflow } from '../workflows/redemption';

export interface ChainOutboxDependencies {
  db: Database;
  temporal: Client;
  taskQueue: string;
  /** HEDGE_WINDOW_MS: the netting window of the hedging workflows it starts. */
  hedgeWindowMs: number;
}

/**
 * Signals and workflow starts in flight at once while delivering the outbox: each waits on a round trip to the
 * Temporal service, so delivery is bound by how many are in flight (a scan of 5,000 executions on the development
 * machine: 8 → 722 logs/s, 32 → 1,110, 128 → 1,773; 256 and 500 no faster).
 */
const DELIVERY_CONCURRENCY = 128;
const DELIVERY_BATCH = 500;

/** Answers `deliver(chain)`, which delivers the chain's outbox and answers how many messages it delivered. */
export function createChainOutboxDelivery(deps: ChainOutboxDependencies): (chain: string) => Promise<number> {
  const { db, temporal, taskQueue } = deps;

  /**
   * Sends one message; answers false when it must wait in the outbox: its attestation's workflow is not started yet
   * (the start waits in the attestation outbox, and a signal to no workflow would be lost).
   */
  async function send(message: ChainMessage): Promise<boolean> {
    if (message.kind === 'hedge_owed') {
      // Wakes the underlying's hedging workflow, starting it if it is not running; it finds what is owed in SQL.
      await temporal.workflow.signalWithStart<typeof hedgeWorkflow>('hedgeWorkflow', {
        workflowId: hedgeWorkflowId(message.subject),
        taskQueue,
        args: [{ underlying: message.subject, windowMs: deps.hedgeWindowMs }],
        signal: hedgeOwedSignal,
        signalArgs: [],
        workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
      });
      return true;
    }
    if (message.kind === 'redemption_final') {
      try {
        await temporal.workflow.start<typeof redemptionWorkflow>('redemptionWorkflow', {
          workflowId: message.subject,
          taskQueue,
          args: [message.payload as unknown as RedemptionInput],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        });
      } catch (error) {
        // A second start of the same redemption is a known outcome: one workflow per log.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      return true;
    }
    const execution = message.payload as unknown as AttestationExecutionSeen;
    const handle = temporal.workflow.getHandle(attestationWorkflowId(message.subject));
    /** Signals the attestation's workflow; answers false when there is none (not started yet, or settled). */
    const signalled = async (): Promise<boolean> => {
      try {
        if (message.kind === 'execution_seen') await handle.signal(attestationExecutionSeenSignal, execution);
        else if (message.kind === 'execution_orphaned') await handle.signal(attestationExecutionOrphanedSignal, execution);
        else await handle.signal(attestationExecutedSignal, { txHash: execution.txHash, executedAt: execution.executedAt, blockNumber: execution.blockNumber, logIndex: execution.logIndex });
        return true;
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    };
    if (await signalled()) return true;
    if (await attestationWorkflowStartPending(db, message.subject)) return false;
    // Its start leaves the outbox only once made, so the workflow is there now (it may have started since the signal
    // failed) — or it settled, and SQL already holds the attestation's state.
    await signalled();
    return true;
  }

  /**
   * Delivers the chain's outbox, oldest first and in order per workflow; a message is deleted once delivered. A
   * message that must wait (`send`) keeps the later ones of its workflow with it until the next delivery.
   */
  async function deliver(chain: string): Promise<number> {
    let delivered = 0;
    for (;;) {
      const messages = await pendingChainMessages(db, chain, DELIVERY_BATCH);
      const bySubject = new Map<string, ChainMessage[]>();
      for (const message of messages) {
        const key = `${message.kind === 'redemption_final' ? 'redemption' : message.kind === 'hedge_owed' ? 'hedge' : 'attestation'}:${message.subject}`;
        bySubject.set(key, [...(bySubject.get(key) ?? []), message]);
      }
      const sent: number[] = [];
      await forEachConcurrently([...bySubject.values()], DELIVERY_CONCURRENCY, async (group) => {
        for (const message of group) {
          if (!(await send(message))) return;
          sent.push(message.id);
        }
      });
      await deleteChainMessages(db, sent);
      delivered += sent.length;
      // Waiting messages come first again: the next delivery takes them up.
      if (messages.length < DELIVERY_BATCH || sent.length < messages.length) return delivered;
    }
  }

  return deliver;
}
