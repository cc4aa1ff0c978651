/**
 * The worker on its own (`npm run worker`): the product's workflows and activities against DATABASE_URL, composed of
 * the parts `npm start` uses — the Temporal service the configuration names (temporal/connection.ts), the chains
 * RPC_URL_<CHAIN> names (none: a worker without chains), the worker — and stopped like it, each part within its
 * deadline, on SIGINT/SIGTERM or when the worker stops by itself.
 */
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { CHAIN_VARIABLES, chainVariables, EVM_CHAINS } from '../domain/chains';
import { createPool } from '../db/pool';
import { configuredBroker } from '../partner/broker-client';
import { startWorker } from '../worker/start-worker';
import { configuredChains } from './chains';
import { Parts } from './parts';
import { startTemporal } from './temporal';

async function main(): Promise<void> {
  const config = loadConfig([
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
    'TEMPORAL_PORT',
    'TEMPORAL_TASK_QUEUE',
    'WORKFLOW_BUNDLE_PATH',
    'ATTESTATION_SETTLEMENT_GRACE_MS',
    'LOG_LEVEL',
    'LOG_FORMAT',
    ...CHAIN_VARIABLES,
    'CHAIN_ISSUER_PRIVATE_KEY',
    'CHAIN_SCAN_BLOCK_RANGE',
    'CHAIN_POLL_INTERVAL_MS',
    'BROKER_URL',
    'BROKER_ACCOUNT_ID',
    'BROKER_KEY',
    'BROKER_SECRET',
  ]);
  if (!config.DATABASE_URL) throw new Error('invalid configuration: DATABASE_URL: the standalone worker needs the database its activities write to');
  const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const parts = new Parts(logger);
  try {
    const db = createPool(config.DATABASE_URL);
    parts.add({ name: 'database pool', stop: () => db.end(), deadlineMs: 5_000 });
    const temporal = await startTemporal(config, { logger });
    parts.add(temporal);
    const chains = await configuredChains(config, logger);
    if (chains) parts.add(chains);
    else logger.warn(`no ${EVM_CHAINS.map((chain) => chainVariables(chain).rpcUrl).join(' / ')}: this worker runs no chain watchers and refuses chain activities`);
    const broker = configuredBroker(config);
    if (!broker) logger.warn("no BROKER_URL: this worker retries the partner flow's broker calls until a worker that has one runs them");
    const worker = await startWorker({ config, temporal, db, logger, chains, broker });
    parts.add(worker);
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: temporal.address, kind: temporal.kind, namespace: temporal.namespace }, 'worker polling');
    // The SDK Runtime shuts the worker down on SIGINT/SIGTERM; then the rest stops too.
    await worker.done;
  } finally {
    await parts.stopped();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
