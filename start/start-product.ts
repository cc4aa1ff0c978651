/**
 * The whole product in one process on embedded defaults, composed of its parts (start/*.ts): the database
 * (embedded PostgreSQL unless DATABASE_URL) with its migrations and catalogue, the market data (backfill and feed),
 * the EVM chains (local anvil unless RPC URLs) with the contracts deployed once, Solana (the local ledger with its
 * mints, treasury and nonce pool made once, unless SOLANA_RPC_URL), Temporal, the API with its live
 * streams, the brokerage sandbox of the partner flow (unless BROKER_URL names a broker), the worker (with a watcher per
 * chain) once what its activities call listens, the metrics on METRICS_PORT, and the development extras: keys,
 * wallets, the sandbox's participant, a webhook master key (start/webhook-keys.ts) — on the embedded PostgreSQL, or on DATABASE_URL only when DEVELOPMENT_KEYS=true.
 * `stop()` takes it down in reverse order, each part within its deadline (start/parts.ts); `signal` aborts a start
 * under way, stopping whatever had started.
 */
import type { Config } from '../config';
import type { Logger } from '../config/logger';
import { freePort } from '../config/free-port';
import { findActiveApiKey } from '../db/queries/api-keys';
import { CATALOGUE } from '../domain/catalogue';
import { SOLANA_CHAIN } from '../domain/chains';
import { createProcessMetrics } from '../metrics/process-metrics';
import { startMetricsServer } from '../metrics/server';
import { configuredBroker } from '../partner/broker-client';
import { loadSigners, signerPublicInfo } from '../signing';
import { startWorker } from '../worker/start-worker';
import type { StoredMarketData } from '../price-feed/pipeline';
import { startApi } from './api';
import { ensureDeployments, startChains } from './chains';
import { prepareDatabase, startDatabase } from './database';
import { ensureDevKeys, refuseDevKeysBesideRealOnes, wantsDevelopmentKeys, type DevKeys } from './dev-keys';
import { ensureDevWallets, listSolanaDevWallets } from './dev-wallets';
import { startMarketData } from './market-data';
import { recordSolanaMints, registerNoncePool, solanaAccountsOf, startSolana } from './solana';
import { ensureSolanaSetup, issuerSolanaSecretKey } from './solana-setup';
import { DEVELOPMENT_ISSUER_ID, loadSandboxSecrets, onboardDevelopmentClient, sandboxConnection, sandboxUrl, startSandbox } from './partner-sandbox';
import { Parts, type Part } from './parts';
import { readStackFile, stackChains, writeStackFile, type StackFile } from './stack-file';
import { startTemporal } from './temporal';
import { developmentWebhookSettings } from './webhook-keys';

export interface RunningProduct {
  stack: StackFile;
  /** Absent when no development keys were made (DATABASE_URL without DEVELOPMENT_KEYS). */
  keys?: DevKeys;
  /** Stops every part in reverse order of starting, each within its deadline. */
  stop(): Promise<void>;
  /** Kills every child process at once (a shutdown past its own deadline). */
  kill(): void;
}

export interface StartProductOptions {
  logger: Logger;
  /** Aborting it stops the start under way and whatever had started (a signal during start-up). */
  signal?: AbortSignal;
}

export async function startProduct(config: Config, options: StartProductOptions): Promise<RunningProduct> {
  const { logger, signal } = options;
  const parts = new Parts(logger);
  const stop = () => parts.stopped();
  /** Registers a started part (stopped at once when stopping has begun), then gives up the start if it was aborted. */
  const started = <P extends Part>(part: P): P => {
    parts.add(part);
    signal?.throwIfAborted();
    return part;
  };
  const onAbort = (): void => void parts.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    const { url: databaseUrl, db } = started(await startDatabase(config, { logger }));
    const now = Date.now();
    await prepareDatabase(db, { now, logger });
    // The development extras (keys, wallets, the brokerage sandbox): on the embedded database, or when asked for.
    const development = wantsDevelopmentKeys(config);
    if (development && config.DATABASE_URL) await refuseDevKeysBesideRealOnes(db);

    // The live streams of the API part (started later) take each batch the pipeline stores.
    let toLiveStreams: (stored: StoredMarketData) => void = () => undefined;
    const { pipeline } = started(await startMarketData(config, { db, logger, now, onStored: (stored) => toLiveStreams(stored) }));

    const signers = loadSigners({ keys: config, dataDir: config.DATA_DIR });
    // The API seals webhook secrets and the worker opens them under the same master key (generated once when unset).
    const roleConfig = { ...config, ...developmentWebhookSettings(config) };
    // The partner flow's broker: the one configured, or the sandbox this process runs (started once the API listens).
    const externalBroker = configuredBroker(config);
    const sandboxSecrets = externalBroker || !development ? undefined : loadSandboxSecrets(config.DATA_DIR);
    const chains = started(await startChains(config, logger));
    const deployments = await ensureDeployments({ db, chains, attestationSigner: signers.evm.address, brokerSigner: sandboxSecrets?.signer.address, logger });
    // Solana: the local ledger with the mints, treasury, nonce pool (and development wallets) made once; or a cluster.
    const solana = started(await startSolana(config, logger));
    const solanaIssuerKey = issuerSolanaSecretKey({ keys: config, dataDir: config.DATA_DIR });
    const solanaSetup = solana.local
      ? await ensureSolanaSetup({
          rpcUrl: solana.rpcUrl,
          issuerSecretKey: solanaIssuerKey,
          symbols: CATALOGUE.map((asset) => asset.symbol),
          noncePoolSize: config.SOLANA_NONCE_POOL_SIZE,
          faucet: true,
          wallets: development,
          logger,
        })
      : undefined;
    // The API issues Solana attestations with the accounts derived from the issuer key; the pool table gets the set-up's nonce accounts.
    const solanaAccounts = await solanaAccountsOf({ keys: config, dataDir: config.DATA_DIR });
    await recordSolanaMints(db, solanaAccounts);
    if (solanaSetup) await registerNoncePool(db, solanaSetup.chain);

    const temporal = started(await startTemporal(config, { logger, databaseUrl }));
    const broker = externalBroker ?? (sandboxSecrets && sandboxConnection(sandboxUrl(config.HOST, config.BROKER_SANDBOX_PORT), sandboxSecrets));
    const api = started(
      await startApi({ config: roleConfig, db, databaseUrl, logger, temporal: temporal.client, signers, solana: solanaAccounts, chains: chains.chains, solanaRpcUrl: solana.rpcUrl, pipeline, broker: () => broker }),
    );
    toLiveStreams = api.onStored;
    // The sandbox calls the API back; the worker's activities call the sandbox (the reserves at once, the hedges and
    // the partner callbacks later): the sandbox listens before the worker starts, and the worker stops before it.
    const sandbox = sandboxSecrets
      ? started(
          await startSandbox({
            db,
            logger,
            host: config.HOST,
            port: config.BROKER_SANDBOX_PORT,
            issuerApiUrl: api.url,
            authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
            secrets: sandboxSecrets,
            deployments,
            reseed: config.BROKER_SANDBOX_RESEED,
          }),
        )
      : undefined;
    const runtimeMetricsAddress = `127.0.0.1:${await freePort()}`;
    started(await startWorker({ config: roleConfig, temporal, db, logger, chains, broker, solana: { rpcUrl: solana.rpcUrl, issuerSecretKey: solanaIssuerKey }, runtimeMetricsAddress }));
    const metrics = started(
      await startMetricsServer({
        host: config.HOST,
        port: config.METRICS_PORT,
        registry: createProcessMetrics({ role: 'all', db, poolMax: 20, chains: () => chains.chains, solanaRpcUrl: () => solana.rpcUrl }),
        temporalMetricsUrl: () => `http://${runtimeMetricsAddress}/metrics`,
        logger,
      }),
    );

    const previous = readStackFile(config.DATA_DIR);
    const keys = development ? await ensureDevKeys(db, previous?.keys, async (secret) => (await findActiveApiKey(db, secret)) !== undefined) : undefined;
    const writeKey = keys && (await findActiveApiKey(db, keys.write))!;
    const wallets = writeKey && chains.local
      ? await ensureDevWallets({
          db,
          chains,
          deployments,
          workflows: { client: temporal.client, taskQueue: config.TEMPORAL_TASK_QUEUE },
          account: { id: writeKey.accountId!, userId: writeKey.userId! },
        })
      : [];
    if (writeKey && solanaSetup) await listSolanaDevWallets(db, { accountId: writeKey.accountId!, wallets: solanaSetup.wallets });
    if (sandbox && writeKey) {
      await onboardDevelopmentClient(db, { accountId: writeKey.accountId!, wallets: wallets.map((wallet) => wallet.address) }, deployments);
      await sandbox.connectParticipant();
    }
    const stack: StackFile = {
      ...previous,
      api: `${api.url}/v1`,
      keys,
      // The write key's account, which holds the development wallets: the `{accountId}` of /v1/accounts/{accountId}/wallets.
      account: writeKey && { id: writeKey.accountId!, userId: writeKey.userId! },
      metrics: metrics.url,
      database: databaseUrl,
      temporal: { address: temporal.address, namespace: temporal.namespace, kind: temporal.kind },
      signers: signerPublicInfo(signers, Object.fromEntries(deployments.map((deployment) => [deployment.chain, deployment.tokenManager])), solanaAccounts),
      chains: { ...(await stackChains(db, chains, deployments)), [SOLANA_CHAIN]: solanaSetup?.chain ?? { rpcUrl: solana.rpcUrl } },
      wallets,
      solanaWallets: solanaSetup?.wallets ?? [],
      grpc: { address: api.grpcAddress, proto: 'proto/ondo/gm/backend/v1/backend.proto', service: 'ondo.gm.backend.v1.BackendService' },
      ...(sandbox ? { broker: sandbox.stackEntry, issuer: { id: DEVELOPMENT_ISSUER_ID, partnerKey: sandboxSecrets!.partnerApiKey } } : {}),
    };
    writeStackFile(config.DATA_DIR, stack);
    signal?.throwIfAborted();
    return { stack, keys, stop, kill: () => parts.killAll() };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
