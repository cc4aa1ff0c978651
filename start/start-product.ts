/**
 * The whole product in one process on embedded defaults: PostgreSQL (embedded unless DATABASE_URL),
 * migrations, catalogue, market-data backfill and feed, the EVM chains (local anvil unless RPC URLs) with the
 * contracts deployed once, Temporal and the worker (with a watcher per chain), the HTTP API, development keys
 * and wallets, and the brokerage sandbox of the partner flow (unless BROKER_URL names a broker). `stop()` takes it
 * down in reverse order, each part within its deadline (start/parts.ts); `signal` aborts a start under way, stopping
 * whatever had started.
 */
import { createApp } from '../api/app';
import { chainWatcherProbes } from '../api/health/readiness';
import type { Logger } from '../config/logger';
import { listen } from '../api/server';
import { publicBaseUrl, type Config } from '../config';
import { listenForChanges } from '../db/changes';
import { startEmbeddedPostgres } from '../db/embedded';
import { migrate } from '../db/migrate';
import { createPool } from '../db/pool';
import { findActiveApiKey } from '../db/queries/api-keys';
import { seedCatalogue } from '../db/seed';
import { CATALOGUE } from '../domain/catalogue';
import { backfillMarketData } from '../price-feed/backfill';
import { startFeed } from '../price-feed/feed';
import { MarketDataPipeline } from '../price-feed/pipeline';
import { SimulatedPriceSource } from '../price-feed/simulated-source';
import { startGrpcServer } from '../streams/grpc-server';
import { createMarketStreams } from '../streams/market-streams';
import { feedMarketStreams } from '../streams/process-feed';
import { loadSigners, signerPublicInfo } from '../signing';
import { findTemporalService } from '../temporal/connection';
import { startWorker } from '../worker/start-worker';
import { attestationSettings } from '../attestations/settings';
import { ensureDevKeys, type DevKeys } from './dev-keys';
import { progressReporter } from './progress';
import { readStackFile, stackChains, writeStackFile, type StackFile } from './stack-file';
import { startChains } from './chains';
import { ensureDevWallets } from './dev-wallets';
import { ensureDeployment } from '../chains/deployments';
import type { ChainDeploymentRecord } from '../db/queries/chain-deployments';
import { configuredBroker } from '../partner/broker-client';
import { onChainBrokerSigners } from '../partner/broker-signature';
import { DEVELOPMENT_ISSUER_ID, loadSandboxSecrets, sandboxConnection, startSandbox } from './partner-sandbox';
import { Parts } from './parts';

export interface RunningProduct {
  stack: StackFile;
  keys: DevKeys;
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
  const started = (part: Parameters<Parts['add']>[0]): void => {
    parts.add(part);
    signal?.throwIfAborted();
  };
  const onAbort = (): void => void parts.stop();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      logger.info({ dataDir: config.DATA_DIR, port: config.EMBEDDED_POSTGRES_PORT }, 'starting embedded PostgreSQL');
      const embedded = await startEmbeddedPostgres({
        dataDir: config.DATA_DIR,
        port: config.EMBEDDED_POSTGRES_PORT,
        onLog: (line) => logger.info(line),
      });
      started({ name: 'PostgreSQL', stop: () => embedded.stop(), deadlineMs: 20_000, kill: () => embedded.kill() });
      databaseUrl = embedded.url;
    }
    const db = createPool(databaseUrl, 20, (error) => logger.warn({ err: error }, 'an idle database connection failed'));
    started({ name: 'database pool', stop: () => db.end(), deadlineMs: 5_000 });

    const applied = await migrate(db, { onProgress: (message) => logger.info(message) });
    logger.info({ applied: applied.length }, 'database schema up to date');
    const now = Date.now();
    await seedCatalogue(db, now);
    logger.info({ assets: CATALOGUE.length }, 'catalogue seeded');

    const streams = createMarketStreams({
      db,
      logger,
      settings: { heartbeatMs: config.STREAM_HEARTBEAT_MS, streamsPerKey: config.STREAMS_PER_KEY },
    });
    const streamsFeed = await feedMarketStreams({ hub: streams.hub, db, databaseUrl, logger });
    started({ name: 'stream feed', stop: () => streamsFeed.stop(), deadlineMs: 5_000 });
    const pipeline = new MarketDataPipeline(db, { onStored: (stored) => streamsFeed.onStored(stored) });
    let source: SimulatedPriceSource | undefined;
    if (config.PRICE_SOURCE === 'simulated') {
      const started = Date.now();
      const written = await backfillMarketData({
        db,
        assets: CATALOGUE,
        now,
        seed: config.SIMULATION_SEED,
        onProgress: progressReporter('backfilling market data', (message) => logger.info(message)),
      });
      logger.info({ candles: written, ms: Date.now() - started }, 'market data backfilled');
      source = new SimulatedPriceSource({
        assets: CATALOGUE,
        tickMs: config.PRICE_TICK_MS,
        seed: config.SIMULATION_SEED,
        onError: (error) => logger.error({ err: error }, 'price ticks failing (reported once until they recover)'),
        onRecovered: (failedTicks) => logger.info({ failedTicks }, 'price ticks flowing again'),
      });
    }
    const feed = startFeed({ pipeline, source });
    started({ name: 'price feed', stop: () => feed.stop(), deadlineMs: 10_000 });

    const signers = loadSigners({ keys: config, dataDir: config.DATA_DIR });
    // The partner flow's broker: the one configured, or the sandbox this process runs (started once the API listens).
    const externalBroker = configuredBroker(config);
    const sandboxSecrets = externalBroker ? undefined : loadSandboxSecrets(config.DATA_DIR);
    const chains = await startChains(config, logger);
    started({ name: 'chains', stop: () => chains.stop(), deadlineMs: 10_000, kill: () => chains.kill() });
    const deployments: ChainDeploymentRecord[] = [];
    for (const network of chains.networks) {
      const { deployment, deployed } = await ensureDeployment({
        db,
        context: chains.chains[network.chain]!,
        issuer: chains.issuer,
        attestationSigner: signers.evm.address,
        brokerSigner: sandboxSecrets?.signer.address,
        assets: CATALOGUE,
      });
      deployments.push(deployment);
      logger.info({ chain: network.chain, tokenManager: deployment.tokenManager, issuer: deployment.issuer, deployed }, 'contracts ready');
    }

    const temporal = await findTemporalService(config, { databaseUrl });
    started({ name: 'Temporal service', stop: () => temporal.stop(), deadlineMs: 10_000 });
    logger.info({ address: temporal.address, namespace: temporal.namespace, kind: temporal.kind }, 'Temporal service found');
    const worker = await startWorker({
      service: temporal,
      db,
      logger,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowBundlePath: config.WORKFLOW_BUNDLE_PATH,
      settlementGraceMs: config.ATTESTATION_SETTLEMENT_GRACE_MS,
      chains: {
        ...chains,
        blockRange: config.CHAIN_SCAN_BLOCK_RANGE,
        pollIntervalMs: config.CHAIN_POLL_INTERVAL_MS,
      },
      broker: externalBroker ?? sandboxConnection(config.HOST, config.BROKER_SANDBOX_PORT, sandboxSecrets!),
    });
    started({ name: 'worker', stop: () => worker.stop(), deadlineMs: 15_000 });

    await streams.hub.start();
    started({ name: 'stream fan-out', stop: () => streams.hub.stop(), deadlineMs: 5_000 });
    const app = createApp({
      config: { ...config, PUBLIC_BASE_URL: publicBaseUrl(config) },
      streams,
      db,
      logger,
      temporal: worker.client,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      readinessChecks: {
        ...Object.fromEntries(
          chains.networks.map((network) => [`chain ${network.chain}`, () => chains.chains[network.chain]!.client.getBlockNumber({ cacheTime: 0 })]),
        ),
        ...chainWatcherProbes(db, deployments.map((deployment) => deployment.chain)),
      },
      attestations: {
        signers,
        settings: attestationSettings(config),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        settlementGraceMs: config.ATTESTATION_SETTLEMENT_GRACE_MS,
      },
      ingestTicks: async (ticks) => {
        await pipeline.ingest(ticks);
        return { accepted: ticks.length };
      },
      brokerSigners: onChainBrokerSigners(Object.fromEntries(chains.networks.map((network) => [network.chain, chains.chains[network.chain]!.client]))),
    });
    const listener = await listenForChanges(
      databaseUrl,
      (topic) => {
        app.services.forget(topic);
        if (topic === 'prices') pipeline.reload();
      },
      {
        onConnectionLost: (error) => logger.warn({ err: error }, 'change notifications lost; reconnecting'),
        onReconnected: () => logger.info('change notifications reconnected'),
      },
    );
    started({ name: 'change notifications', stop: () => listener.stop(), deadlineMs: 5_000 });
    const server = await listen(app, { host: config.HOST, port: config.PORT });
    started({ name: 'API', stop: () => server.close(), deadlineMs: 10_000, kill: () => server.server.closeAllConnections() });
    started({ name: 'live streams', stop: async () => streams.hub.endSubscriptions('the server is shutting down'), deadlineMs: 5_000 });
    const grpc = await startGrpcServer({
      streams,
      keys: app.services.keys,
      host: config.HOST,
      port: config.GRPC_PORT,
      failuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      logger,
    });
    started({ name: 'gRPC streams', stop: () => grpc.stop(), deadlineMs: 5_000 });
    logger.info({ address: grpc.address }, 'gRPC live streams listening (proto/market_stream.proto)');

    const previous = readStackFile(config.DATA_DIR);
    const keys = await ensureDevKeys(db, previous?.keys, async (secret) => (await findActiveApiKey(db, secret)) !== undefined);
    const writeKey = (await findActiveApiKey(db, keys.write))!;
    const wallets = chains.local
      ? await ensureDevWallets({
          db,
          chains,
          deployments,
          workflows: { client: worker.client, taskQueue: config.TEMPORAL_TASK_QUEUE },
          account: { id: writeKey.accountId!, userId: writeKey.userId! },
        })
      : [];
    const sandbox = sandboxSecrets
      ? await startSandbox({
          db,
          logger,
          host: config.HOST,
          port: config.BROKER_SANDBOX_PORT,
          issuerApiUrl: server.url,
          authFailuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
          secrets: sandboxSecrets,
          deployments,
          client: { accountId: writeKey.accountId!, wallets: wallets.map((wallet) => wallet.address) },
        })
      : undefined;
    if (sandbox) started({ name: 'brokerage sandbox', stop: () => sandbox.broker.stop(), deadlineMs: 15_000 });
    const stack: StackFile = {
      ...previous,
      api: `${server.url}/v1`,
      keys,
      database: databaseUrl,
      temporal: { address: temporal.address, namespace: temporal.namespace, kind: temporal.kind },
      signers: signerPublicInfo(signers, Object.fromEntries(deployments.map((deployment) => [deployment.chain, deployment.tokenManager]))),
      chains: await stackChains(db, chains, deployments),
      wallets,
      grpc: { address: grpc.address, proto: 'proto/market_stream.proto' },
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
