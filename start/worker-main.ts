/**
 * The worker role (`npm run worker`, start/role.ts): the product's workflows and activities on TEMPORAL_ADDRESS
 * against DATABASE_URL, composed of the parts `npm start` uses — the chains RPC_URL_<CHAIN> names (none: a worker
 * without chains), the broker BROKER_URL names, the Solana ledger SOLANA_RPC_URL names with the issuer's Solana key
 * (the nonce pool's keeper), the worker — with the Temporal SDK's own metrics passed on at
 * /metrics. Any number of workers may run: the chain watchers and the retention are singletons by workflow id.
 */
import { freePort } from '../config/free-port';
import { CHAIN_VARIABLES, chainVariables, EVM_CHAINS } from '../domain/chains';
import { configuredBroker } from '../partner/broker-client';
import { SOLANA_KEY_VARIABLE } from '../signing';
import { startWorker } from '../worker/start-worker';
import { runRole } from './role';
import { startTemporal } from './temporal';

runRole({
  name: 'worker',
  usage: `usage: npm run worker   the workflows and activities, configured by the environment (README, "Running in production"):
  DATABASE_URL and TEMPORAL_ADDRESS (required), TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, WORKFLOW_BUNDLE_PATH, WORKFLOW_THREADS, RPC_URL_<CHAIN>,
  CHAIN_ISSUER_PRIVATE_KEY, BROKER_URL/BROKER_ACCOUNT_ID/BROKER_KEY/BROKER_SECRET, SOLANA_RPC_URL with ${SOLANA_KEY_VARIABLE},
  SOLANA_NONCE_POOL_SIZE/SOLANA_NONCE_POOL_LOW_WATER/SOLANA_NONCE_POOL_MAX, WEBHOOK_SECRET_KEYS (unset: no webhook delivered) and the
  other WEBHOOK_* settings, METRICS_PORT; stops on SIGINT or SIGTERM`,
  variables: [
    'WORKFLOW_BUNDLE_PATH',
    'WORKFLOW_THREADS',
    'ATTESTATION_SETTLEMENT_GRACE_MS',
    ...CHAIN_VARIABLES,
    'CHAIN_ISSUER_PRIVATE_KEY',
    'CHAIN_SCAN_BLOCK_RANGE',
    'CHAIN_POLL_INTERVAL_MS',
    'HEDGE_WINDOW_MS',
    'RESERVES_INTERVAL_MS',
    'RESERVES_TOLERANCE_BPS',
    'BROKER_URL',
    'BROKER_ACCOUNT_ID',
    'BROKER_KEY',
    'BROKER_SECRET',
    'SOLANA_RPC_URL',
    SOLANA_KEY_VARIABLE,
    'SOLANA_NONCE_POOL_SIZE',
    'SOLANA_NONCE_POOL_LOW_WATER',
    'SOLANA_NONCE_POOL_MAX',
    'WEBHOOK_SECRET_KEYS',
    'WEBHOOK_ALLOWED_NETWORKS',
    'WEBHOOK_ALLOW_HTTP',
    'WEBHOOK_RETRY_SCHEDULE',
    'WEBHOOK_DISABLE_AFTER_MS',
    'WEBHOOK_TIMEOUT_MS',
    'WEBHOOK_CONCURRENCY_PER_ENDPOINT',
    'WEBHOOK_RETENTION_DAYS',
  ],
  async start({ config, logger, db, parts, startChains, exportTemporalMetrics }) {
    const temporal = await startTemporal(config, { logger });
    parts.add(temporal);
    const chains = await startChains(config);
    if (!chains) logger.warn(`no ${EVM_CHAINS.map((chain) => chainVariables(chain).rpcUrl).join(' / ')}: this worker runs no chain watchers and refuses chain activities`);
    const broker = configuredBroker(config);
    if (!broker) logger.warn("no BROKER_URL: this worker retries the partner flow's broker calls until a worker that has one runs them");
    const solanaKey = config[SOLANA_KEY_VARIABLE];
    // The issuer's Solana key on SOLANA_RPC_URL: the chain watched, the attestations' nonces advanced, the nonce pool kept.
    const solana = config.SOLANA_RPC_URL && solanaKey ? { rpcUrl: config.SOLANA_RPC_URL, issuerSecretKey: solanaKey } : undefined;
    if (!solana) logger.warn(`no SOLANA_RPC_URL with ${SOLANA_KEY_VARIABLE}: this worker watches no Solana ledger, keeps no nonce pool and retries the Solana nonce activities until a worker that has them runs them`);
    // The SDK runtime's exporter listens on a local port of its own; /metrics reads it and passes it on.
    const runtimeMetricsAddress = `127.0.0.1:${await freePort()}`;
    exportTemporalMetrics(`http://${runtimeMetricsAddress}/metrics`);
    const worker = await startWorker({ config, temporal, db, logger, chains, broker, solana, runtimeMetricsAddress });
    parts.add(worker);
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: temporal.address, namespace: temporal.namespace }, 'worker polling');
    // The SDK runtime shuts the worker down on SIGINT/SIGTERM too; then the rest stops.
    return { ended: worker.done };
  },
});
