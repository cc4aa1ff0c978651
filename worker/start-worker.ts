/**
 * The one worker start-up, used by the standalone worker (worker/main.ts) and by `npm start`: connects to
 * the Temporal service, runs the product's workflows (from the prebuilt bundle or from source) with
 * activities built from their dependencies, starts the long-running workflows — candle retention and one
 * watcher per deployed chain (a second start finds the running one) — and starts the workflows of requests
 * stored while their start failed (outstanding attestations, wallet registrations and partner mints under way).
 */
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { IssuerChains } from '../chains/context';
import { listChainDeployments } from '../db/queries/chains';
import { recoverAttestationWorkflows } from '../attestations/lifecycle-workflows';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import type { TemporalService } from '../temporal/connection';
import { chainWatcherWorkflowId, MARKET_DATA_RETENTION_WORKFLOW_ID } from '../temporal/workflow-ids';
import { recoverWalletRegistrations } from '../wallets/registration';
import { BrokerClient, type BrokerConnection } from '../partner/broker-client';
import { recoverPartnerMintWorkflows } from '../partner/workflows';
import type { chainWatcherWorkflow, marketDataRetentionWorkflow } from '../workflows';
import { runWorker, type RunningSdkWorker, type WorkflowSource } from './run-worker';

export interface StartWorkerParameters {
  service: TemporalService;
  db: Database;
  logger: Logger;
  taskQueue: string;
  /** A prebuilt bundle (scripts/build-workflow-bundle.ts); unset bundles workflows/ from source. */
  workflowBundlePath?: string;
  /** The attestation workflows' settlement grace (ATTESTATION_SETTLEMENT_GRACE_MS). */
  settlementGraceMs: number;
  /** The EVM chains and how to watch them; absent: a worker without chains (no watchers, chain activities refuse). */
  chains?: IssuerChains & { blockRange: number; pollIntervalMs: number };
  /** The brokerage partner the partner flow calls back; absent: those calls are retried until a worker that has it runs them. */
  broker?: BrokerConnection;
}

export interface RunningWorker {
  /** A client on the same service, for starting, signalling and querying workflows. */
  client: Client;
  /** Resolves when the worker stops by itself (a signal, or a fatal error, which it rejects with). */
  done: Promise<void>;
  /** Drains in-flight tasks, then closes the client and the connection (not the service). */
  stop(): Promise<void>;
}

/** Routes the SDK's own logs (worker state, bundling, task failures) into the process logger, warnings and up. */
function installRuntimeLogger(logger: Logger): void {
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => logger[levels[entry.level]]({ temporal: entry.meta }, entry.message)),
    });
  } catch {
    // A runtime is already installed (a second worker in one process): keep it.
  }
}

export async function startWorker(parameters: StartWorkerParameters): Promise<RunningWorker> {
  const { service, db, logger, taskQueue } = parameters;
  installRuntimeLogger(logger);
  const workflows: WorkflowSource = parameters.workflowBundlePath
    ? { workflowBundle: { codePath: parameters.workflowBundlePath } }
    : { workflowsPath: require.resolve('../workflows') };
  // The client first: the chain watchers' activities signal and start workflows with it.
  const client = await createTemporalClient({ address: service.address, namespace: service.namespace });
  const { chains } = parameters;
  logger.info({ taskQueue, bundle: parameters.workflowBundlePath ?? 'from source' }, 'starting the worker');
  let worker: RunningSdkWorker;
  try {
    worker = await runWorker({
      address: service.address,
      namespace: service.namespace,
      taskQueue,
      // The embedded service is in this process or on this machine: gzip would only burn CPU on both sides.
      compress: service.kind !== 'in-memory' && service.kind !== 'embedded-durable',
      activities: createActivities({
        db,
        chains: chains && {
          chains: chains.chains,
          issuer: chains.issuer,
          temporal: client,
          taskQueue,
          blockRange: chains.blockRange,
          settlementGraceMs: parameters.settlementGraceMs,
        },
        broker: parameters.broker && new BrokerClient(parameters.broker),
      }),
      workflows,
      options: { shutdownGraceTime: '10 seconds' },
    });
  } catch (error) {
    await closeTemporalClient(client);
    throw error;
  }
  // The SDK Runtime shuts running workers down on SIGINT/SIGTERM (its default shutdownSignals); `done` resolves
  // once in-flight tasks have drained.
  const { done } = worker;
  const stopWorker = () => worker.stop();

  try {
    await client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
      workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
      taskQueue,
      args: [{ every: '1 hour', prunesPerRun: 24 }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    });
    if (chains) {
      for (const deployment of await listChainDeployments(db)) {
        if (!chains.chains[deployment.chain as keyof typeof chains.chains]) continue;
        await client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
          workflowId: chainWatcherWorkflowId(deployment.chainId),
          taskQueue,
          args: [{ chain: deployment.chain, pollIntervalMs: chains.pollIntervalMs }],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        });
        logger.info({ chain: deployment.chain, workflowId: chainWatcherWorkflowId(deployment.chainId) }, 'chain watcher running');
      }
    }
    const attestationWorkflows = await recoverAttestationWorkflows({ db, client, taskQueue, settlementGraceMs: parameters.settlementGraceMs });
    const walletRegistrations = chains ? await recoverWalletRegistrations(db, { client, taskQueue }) : 0;
    const partnerMints = await recoverPartnerMintWorkflows(db, { client, taskQueue });
    logger.info({ attestationWorkflows, walletRegistrations, partnerMints }, 'stored requests have their workflows');
  } catch (error) {
    // Without recovery some requests would never be settled: stop, so that a restart tries again.
    await stopWorker();
    await closeTemporalClient(client);
    throw error;
  }

  return {
    client,
    done,
    async stop() {
      await stopWorker();
      await closeTemporalClient(client);
    },
  };
}
