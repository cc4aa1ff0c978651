/**
 * Client-side helpers for the partner flow's workflows: starting `partner-mint-<issuerRequestId>` when the broker's
 * issuance is stored (the API), and on worker start making sure every unfinished mint has one (the worker).
 */
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Queryable } from '../db/pool';
import { listUnfinishedPartnerMints } from '../db/queries/partner-requests';
import { partnerMintWorkflowId } from '../temporal/workflow-ids';
import type { partnerMintWorkflow } from '../workflows';

export interface PartnerWorkflows {
  client: Client;
  taskQueue: string;
}

/**
 * Starts the mint's workflow, or finds the running one. A closed one is never started again: one mint has one
 * settlement, whatever retries the broker or a restart make.
 */
export async function startPartnerMintWorkflow(workflows: PartnerWorkflows, issuerRequestId: string): Promise<void> {
  try {
    await workflows.client.workflow.start<typeof partnerMintWorkflow>('partnerMintWorkflow', {
      workflowId: partnerMintWorkflowId(issuerRequestId),
      taskQueue: workflows.taskQueue,
      args: [{ issuerRequestId }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Starts (or finds) the workflow of every mint still under way; answers how many. */
export async function recoverPartnerMintWorkflows(db: Queryable, workflows: PartnerWorkflows): Promise<number> {
  const ids = await listUnfinishedPartnerMints(db);
  for (const id of ids) await startPartnerMintWorkflow(workflows, id);
  return ids.length;
}
