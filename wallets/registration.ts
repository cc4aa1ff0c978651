/**
 * Registering an account's wallet in a chain's identity registry, and removing it: the wanted state is written to
 * PostgreSQL first, then a `walletRegistrationWorkflow` is started for that change (its id carries the change's
 * version, so a retried request finds the same workflow). Worker start-up recovers changes whose workflow never
 * started (the request was stored but the start failed), as a real Temporal server would need too.
 */
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import type { Queryable } from '../db/pool';
import {
  findWallet,
  requestWalletRegistration,
  requestWalletUnregistration,
  type RequestRegistrationOutcome,
  type WalletRecord,
  listWalletsUnderWay,
} from '../db/queries/wallets';
import { walletRegistrationWorkflowId } from '../temporal/workflow-ids';
import type { walletRegistrationWorkflow } from '../workflows';

export interface WalletWorkflows {
  client: Client;
  taskQueue: string;
}

/** Starts the workflow that applies the wallet's current wanted state (a second start finds the running one). */
export async function startWalletRegistrationWorkflow(workflows: WalletWorkflows, wallet: WalletRecord): Promise<void> {
  await workflows.client.workflow.start<typeof walletRegistrationWorkflow>('walletRegistrationWorkflow', {
    workflowId: walletRegistrationWorkflowId(wallet.chain, wallet.address, wallet.updatedAt.getTime()),
    taskQueue: workflows.taskQueue,
    args: [{ chain: wallet.chain, address: wallet.address }],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
  });
}

/**
 * Asks for `address` to be registered to the account on `chain`. `taken`: another account holds it (nothing
 * changes); `unchanged`: the account's own wallet, answered as it stands; `requested`: the workflow is started.
 */
export async function registerWallet(
  db: Queryable,
  workflows: WalletWorkflows,
  request: { accountId: string; chain: string; address: string },
): Promise<RequestRegistrationOutcome> {
  const outcome = await requestWalletRegistration(db, request);
  if (outcome.outcome === 'requested' || (outcome.outcome === 'unchanged' && outcome.wallet.state === 'registering')) {
    await startWalletRegistrationWorkflow(workflows, outcome.wallet);
  }
  return outcome;
}

/** Asks for the account's wallet to leave the registry of `chain`; undefined when the account has no such wallet. */
export async function unregisterWallet(
  db: Queryable,
  workflows: WalletWorkflows,
  request: { accountId: string; chain: string; address: string },
): Promise<WalletRecord | undefined> {
  const wallet = await requestWalletUnregistration(db, request);
  if (wallet?.state === 'unregistering') await startWalletRegistrationWorkflow(workflows, wallet);
  return wallet;
}

/** Starts (or finds) the workflow of every wallet change still under way; answers how many. */
export async function recoverWalletRegistrations(db: Queryable, workflows: WalletWorkflows): Promise<number> {
  const rows = await listWalletsUnderWay(db);
  for (const row of rows) {
    const wallet = await findWallet(db, row.chain, row.address);
    if (wallet) await startWalletRegistrationWorkflow(workflows, wallet);
  }
  return rows.length;
}
