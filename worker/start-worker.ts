/**
 * The worker part: the product's workflows (from source, a prebuilt bundle file or bundle code) with activities built
 * from their dependencies, on the Temporal service given; then the long-running workflows — candle retention and one
 * watcher per deployed chain (a second start finds the running one) —, the workflows of attestations as they are
 * stored (their outbox, drained while the worker runs), and those of requests stored while their start failed
 * (outstanding attestations, wallet registrations and partner mints under way). The one worker
 * start-up of `npm start`, `npm run worker`, the partner stack and the chain benchmark.
 */
import { type Client, WorkflowIdConflictPolicy } from '@temporalio/client';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createActivities } from '../activities';
import { rpcNonceLedger } from '../chains/solana-ledger';
import { solanaIssuer } from '../chains/solana-accounts';
import type { IssuerChains } from '../chains/context';
import { deriveSolanaContext } from '../chains/solana-context';
import { CATALOGUE } from '../domain/catalogue';
import { SOLANA_CHAIN } from '../domain/chains';
import { listChainDeployments } from '../db/queries/chain-deployments';
import { recoverAttestationWorkflows, runAttestationWorkflowStarts } from '../attestations/lifecycle-workflows';
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import type { Database } from '../db/pool';
import type { TemporalService } from '../temporal/connection';
import { underlyingsOwed } from '../db/queries/hedging';
import { LONG_LIVED_WORKFLOW_TASK_TIMEOUT } from '../temporal/long-lived';
import { hedgeOwedSignal, type SolanaNoncePoolInput } from '../temporal/messages';
import {
  chainWatcherWorkflowId,
  hedgeWorkflowId,
  MARKET_DATA_RETENTION_WORKFLOW_ID,
  RESERVES_WORKFLOW_ID,
  SOLANA_CHAIN_WATCHER_WORKFLOW_ID,
  SOLANA_NONCE_POOL_WORKFLOW_ID,
} from '../temporal/workflow-ids';
import { recoverWalletRegistrations } from '../wallets/registration';
import { BrokerClient, type BrokerConnection } from '../partner/broker-client';
import { recoverPartnerMintWorkflows } from '../partner/workflows';
import type { chainWatcherWorkflow, hedgeWorkflow, marketDataRetentionWorkflow, reservesWorkflow, solanaNoncePoolWorkflow } from '../workflows';
import { createSecretBox } from '../webhooks/secret-box';
import { createWebhookAgents } from '../webhooks/send';
import { recoverWebhookEndpoints, runWebhookWakeups } from '../webhooks/wakeups';
import type { WebhookDelivery } from '../activities/webhooks';
import { runWorker, type WorkflowSource } from './run-worker';

/**
 * The task queue it polls; the workflow bundle (WORKFLOW_BUNDLE_PATH, scripts/build-workflow-bundle.ts; unset: workflows/
 * bundled from source) and the threads running it; the attestations' settlement grace; how the chain watchers scan and poll.
 */
export type WorkerSettings = Pick<
  Config,
  | 'TEMPORAL_TASK_QUEUE'
  | 'WORKFLOW_BUNDLE_PATH'
  | 'WORKFLOW_THREADS'
  | 'ATTESTATION_SETTLEMENT_GRACE_MS'
  | 'CHAIN_SCAN_BLOCK_RANGE'
  | 'CHAIN_POLL_INTERVAL_MS'
  | 'HEDGE_WINDOW_MS'
  | 'RESERVES_INTERVAL_MS'
  | 'RESERVES_TOLERANCE_BPS'
  | 'SOLANA_NONCE_POOL_SIZE'
  | 'SOLANA_NONCE_POOL_LOW_WATER'
  | 'SOLANA_NONCE_POOL_MAX'
  | 'WEBHOOK_SECRET_KEYS'
  | 'WEBHOOK_ALLOWED_NETWORKS'
  | 'WEBHOOK_ALLOW_HTTP'
  | 'WEBHOOK_RETRY_SCHEDULE'
  | 'WEBHOOK_DISABLE_AFTER_MS'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_CONCURRENCY_PER_ENDPOINT'
  | 'WEBHOOK_RETENTION_DAYS'
>;

/**
 * The Solana nonce pool's checks: a refill every 5 s (a query when the pool is not short), a sweep every minute (past
 * a cluster's finality, ~13 s) of accounts held 5 minutes past their attestation's expiry.
 */
const SOLANA_NONCE_POOL_CHECKS: SolanaNoncePoolInput = { checkIntervalMs: 5_000, sweepIntervalMs: 60_000, sweepPastExpiryMs: 300_000 };

export interface StartWorkerParameters {
  config: WorkerSettings;
  /** The Temporal service, and a client of it: the worker starts workflows with it, the chain watchers' activities signal them. */
  temporal: Pick<TemporalService, 'address' | 'namespace' | 'kind'> & { client: Client };
  db: Database;
  logger: Logger;
  /** The workflow bundle's code, built already (the tests' and benchmarks' cached bundle), instead of WORKFLOW_BUNDLE_PATH or source. */
  bundleCode?: string;
  /** The EVM chains; absent: a worker without chains (no watchers, chain activities refuse). */
  chains?: IssuerChains;
  /** The brokerage partner the partner flow calls back; absent: those calls are retried until a worker that has it runs them. */
  broker?: BrokerConnection;
  /**
   * The Solana ledger (SOLANA_RPC_URL, or npm start's) and the issuer's Solana key: the chain is watched (and counted
   * in the reserves), the attestations' nonces are advanced and the nonce pool kept with them; absent: none of that
   * runs here (the nonce activities are retried until a worker that has them runs them).
   */
  solana?: { rpcUrl: string; issuerSecretKey: Uint8Array };
  /** `host:port` where the SDK runtime exports its own metrics (`temporal_…`, Prometheus text at /metrics); unset: none. */
  runtimeMetricsAddress?: string;
}

export interface RunningWorker {
  name: string;
  deadlineMs: number;
  /** Resolves when the worker stops by itself (a signal, or a fatal error, which it rejects with). */
  done: Promise<void>;
  /** Drains in-flight tasks, then closes the worker's connection (not the client, not the service). */
  stop(): Promise<void>;
}

/**
 * Routes the SDK's own logs (worker state, bundling, task failures) into the process logger, warnings and up, and
 * with an address exports the runtime's metrics there.
 */
function installRuntime(logger: Logger, metricsAddress: string | undefined): void {
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => logger[levels[entry.level]]({ temporal: entry.meta }, entry.message)),
      ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
    });
  } catch {
    // A runtime is already installed (a second worker in one process): keep it.
  }
}

/** Webhook delivery as configured: absent without WEBHOOK_SECRET_KEYS (the worker then delivers none, and says so once). */
function webhookDelivery(config: WorkerSettings, logger: Logger): WebhookDelivery | undefined {
  if (!config.WEBHOOK_SECRET_KEYS) {
    logger.info('WEBHOOK_SECRET_KEYS is unset: this worker delivers no webhooks');
    return undefined;
  }
  return {
    secrets: createSecretBox(config.WEBHOOK_SECRET_KEYS),
    policy: { allowedNetworks: config.WEBHOOK_ALLOWED_NETWORKS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    agents: createWebhookAgents(config.WEBHOOK_CONCURRENCY_PER_ENDPOINT),
  };
}

export async function startWorker(parameters: StartWorkerParameters): Promise<RunningWorker> {
  const { config, temporal, db, logger, chains } = parameters;
  const { client } = temporal;
  const taskQueue = config.TEMPORAL_TASK_QUEUE;
  const settlementGraceMs = config.ATTESTATION_SETTLEMENT_GRACE_MS;
  installRuntime(logger, parameters.runtimeMetricsAddress);
  const solana = parameters.solana && {
    ...parameters.solana,
    issuer: await solanaIssuer(parameters.solana.issuerSecretKey),
    context: await deriveSolanaContext({ ...parameters.solana, symbols: CATALOGUE.map((asset) => asset.symbol) }),
  };
  const workflows: WorkflowSource =
    parameters.bundleCode !== undefined
      ? { workflowBundle: { code: parameters.bundleCode } }
      : config.WORKFLOW_BUNDLE_PATH
        ? { workflowBundle: { codePath: config.WORKFLOW_BUNDLE_PATH } }
        : { workflowsPath: require.resolve('../workflows') };
  const bundle = parameters.bundleCode !== undefined ? 'prebuilt' : (config.WORKFLOW_BUNDLE_PATH ?? 'from source');
  logger.info({ taskQueue, bundle }, 'starting the worker');
  const webhooks = webhookDelivery(config, logger);
  const worker = await runWorker({
    address: temporal.address,
    namespace: temporal.namespace,
    taskQueue,
    // The embedded service is in this process or on this machine: gzip would only burn CPU on both sides.
    compress: temporal.kind !== 'in-memory' && temporal.kind !== 'embedded-durable',
    activities: createActivities({
      db,
      chains: chains && {
        chains: chains.chains,
        issuer: chains.issuer,
        temporal: client,
        taskQueue,
        blockRange: config.CHAIN_SCAN_BLOCK_RANGE,
        settlementGraceMs,
        hedgeWindowMs: config.HEDGE_WINDOW_MS,
      },
      broker: parameters.broker && new BrokerClient(parameters.broker),
      solanaChain: solana && { solana: solana.context, temporal: client, taskQueue, settlementGraceMs, hedgeWindowMs: config.HEDGE_WINDOW_MS },
      reservesToleranceBps: config.RESERVES_TOLERANCE_BPS,
      solana: solana && { ledger: rpcNonceLedger(solana.rpcUrl), issuer: solana.issuer },
      solanaNoncePool: solana && {
        rpcUrl: solana.rpcUrl,
        issuerSecretKey: solana.issuerSecretKey,
        pool: { size: config.SOLANA_NONCE_POOL_SIZE, lowWater: config.SOLANA_NONCE_POOL_LOW_WATER, max: Math.max(config.SOLANA_NONCE_POOL_MAX, config.SOLANA_NONCE_POOL_SIZE) },
      },
      webhooks: { delivery: webhooks, retentionDays: config.WEBHOOK_RETENTION_DAYS },
    }),
    workflows,
    options: { shutdownGraceTime: '10 seconds', workflowThreadPoolSize: config.WORKFLOW_THREADS },
  });
  // The SDK Runtime shuts running workers down on SIGINT/SIGTERM (its default shutdownSignals); `done` resolves
  // once in-flight tasks have drained.
  let starts: { stop(): Promise<void> } | undefined;
  let wakeups: { stop(): Promise<void> } | undefined;
  const stopLoops = async () => {
    await starts?.stop();
    await wakeups?.stop();
  };
  const stopDelivery = () => {
    webhooks?.agents.http.destroy();
    webhooks?.agents.https.destroy();
  };

  try {
    await client.workflow.start<typeof marketDataRetentionWorkflow>('marketDataRetentionWorkflow', {
      workflowId: MARKET_DATA_RETENTION_WORKFLOW_ID,
      taskQueue,
      args: [{ every: '1 hour', prunesPerRun: 24 }],
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
    });
    if (chains) {
      for (const deployment of await listChainDeployments(db)) {
        if (!chains.chains[deployment.chain as keyof typeof chains.chains]) continue;
        await client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
          workflowId: chainWatcherWorkflowId(deployment.chainId),
          taskQueue,
          args: [{ chain: deployment.chain, pollIntervalMs: config.CHAIN_POLL_INTERVAL_MS }],
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
        });
        logger.info({ chain: deployment.chain, workflowId: chainWatcherWorkflowId(deployment.chainId) }, 'chain watcher running');
      }
    }
    if (solana) {
      await client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
        workflowId: SOLANA_CHAIN_WATCHER_WORKFLOW_ID,
        taskQueue,
        args: [{ chain: SOLANA_CHAIN, pollIntervalMs: config.CHAIN_POLL_INTERVAL_MS }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
      });
      logger.info({ chain: SOLANA_CHAIN, workflowId: SOLANA_CHAIN_WATCHER_WORKFLOW_ID }, 'chain watcher running');
      await client.workflow.start<typeof solanaNoncePoolWorkflow>('solanaNoncePoolWorkflow', {
        workflowId: SOLANA_NONCE_POOL_WORKFLOW_ID,
        taskQueue,
        args: [SOLANA_NONCE_POOL_CHECKS],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
      });
    }
    // Proof of reserves, and a hedging workflow for every underlying SQL says still owes a hedge.
    if ((chains || parameters.solana) && parameters.broker) {
      await client.workflow.start<typeof reservesWorkflow>('reservesWorkflow', {
        workflowId: RESERVES_WORKFLOW_ID,
        taskQueue,
        args: [{ intervalMs: config.RESERVES_INTERVAL_MS }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
      });
    }
    const hedges = await underlyingsOwed(db);
    for (const underlying of hedges) {
      await client.workflow.signalWithStart<typeof hedgeWorkflow>('hedgeWorkflow', {
        workflowId: hedgeWorkflowId(underlying),
        taskQueue,
        args: [{ underlying, windowMs: config.HEDGE_WINDOW_MS }],
        signal: hedgeOwedSignal,
        signalArgs: [],
        workflowTaskTimeout: LONG_LIVED_WORKFLOW_TASK_TIMEOUT,
      });
    }
    starts = runAttestationWorkflowStarts({ db, client, taskQueue, settlementGraceMs, logger });
    const attestationWorkflows = await recoverAttestationWorkflows({ db, client, taskQueue, settlementGraceMs });
    const walletRegistrations = chains ? await recoverWalletRegistrations(db, { client, taskQueue }) : 0;
    const partnerMints = await recoverPartnerMintWorkflows(db, { client, taskQueue });
    let webhookEndpoints = 0;
    if (webhooks) {
      wakeups = runWebhookWakeups({ db, client, taskQueue, logger });
      webhookEndpoints = await recoverWebhookEndpoints({ db, client, taskQueue });
    }
    logger.info({ attestationWorkflows, walletRegistrations, partnerMints, hedges: hedges.length, webhookEndpoints }, 'stored requests have their workflows');
  } catch (error) {
    // Without recovery some requests would never be settled: stop, so that a restart tries again.
    await stopLoops();
    await worker.stop();
    stopDelivery();
    throw error;
  }

  return {
    name: 'worker',
    deadlineMs: 15_000,
    done: worker.done,
    async stop() {
      await stopLoops();
      await worker.stop();
      stopDelivery();
    },
  };
}
