/**
 * Standalone worker (`npm run worker`): the product's workflows and activities against DATABASE_URL, the
 * Temporal service configuration names (temporal/connection.ts) and the chains RPC_URL_* name, started by the
 * same `startWorker` as `npm start`; shuts down gracefully on SIGINT/SIGTERM.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { chainContexts } from '../chains/context';
import { chainFinality } from '../chains/finality';
import { checkRpc, evmNetwork } from '../chains/networks';
import { loadConfig, type Config } from '../config';
import { createLogger, type Logger } from '../config/logger';
import { CHAIN_VARIABLES, chainVariables, EVM_CHAINS, type ChainVariable } from '../domain/chains';
import { createPool } from '../db/pool';
import { configuredBroker } from '../partner/broker-client';
import { findTemporalService } from '../temporal/connection';
import { startWorker, type StartWorkerParameters } from './start-worker';

/** The chains their RPC_URL_<CHAIN> names, checked reachable; none configured: a worker without chains. */
async function configuredChains(
  config: Pick<Config, ChainVariable | 'CHAIN_ISSUER_PRIVATE_KEY' | 'CHAIN_SCAN_BLOCK_RANGE' | 'CHAIN_POLL_INTERVAL_MS'>,
  logger: Logger,
): Promise<StartWorkerParameters['chains']> {
  const networks = EVM_CHAINS.flatMap((chain) => {
    const rpcUrl = config[chainVariables(chain).rpcUrl];
    return rpcUrl ? [evmNetwork(chain, rpcUrl)] : [];
  });
  if (networks.length === 0) {
    logger.warn(`no ${EVM_CHAINS.map((chain) => chainVariables(chain).rpcUrl).join(' / ')}: this worker runs no chain watchers and refuses chain activities`);
    return undefined;
  }
  if (!config.CHAIN_ISSUER_PRIVATE_KEY) throw new Error('invalid configuration: CHAIN_ISSUER_PRIVATE_KEY: required with RPC URLs');
  for (const network of networks) await checkRpc(network);
  return {
    chains: chainContexts(networks, chainFinality(config)),
    issuer: privateKeyToAccount(config.CHAIN_ISSUER_PRIVATE_KEY),
    blockRange: config.CHAIN_SCAN_BLOCK_RANGE,
    pollIntervalMs: config.CHAIN_POLL_INTERVAL_MS,
  };
}

function noBroker(logger: Logger): undefined {
  logger.warn("no BROKER_URL: this worker retries the partner flow's broker calls until a worker that has one runs them");
  return undefined;
}

async function main(): Promise<void> {
  const config = loadConfig([
    'DATABASE_URL',
    'TEMPORAL_ADDRESS',
    'TEMPORAL_NAMESPACE',
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
  const service = await findTemporalService(config);
  const db = createPool(config.DATABASE_URL);
  try {
    const worker = await startWorker({
      service,
      db,
      logger,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
      settlementGraceMs: config.ATTESTATION_SETTLEMENT_GRACE_MS,
      chains: await configuredChains(config, logger),
      broker: configuredBroker(config) ?? noBroker(logger),
    });
    logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: service.address, kind: service.kind, namespace: service.namespace }, 'worker polling');
    await worker.done;
    await worker.stop();
  } finally {
    await db.end();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
