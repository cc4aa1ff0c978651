/**
 * The API part: the HTTP API (`/v1`) on HOST:PORT and the gRPC live streams on GRPC_PORT, the live streams' fan-out
 * (fed by this process's market-data pipeline through `onStored`, and by other processes' through PostgreSQL NOTIFY),
 * and the change notifications that keep its caches and the pipeline's latest prices current. Stopping refuses new
 * requests and lets those in flight finish, ends the live streams, then the listeners.
 *
 * `createProductApp` is the app itself, wired from the configuration as the product runs it: what the tests use
 * without listening.
 */
import type { Client } from '@temporalio/client';
import { createApp, type App } from '../api/app';
import type { CheckedAnswer } from '../api/contract/answer-check';
import { chainWatcherProbes, type ReadinessProbe, type WatchedChain } from '../api/health/readiness';
import { listen } from '../api/server';
import { BatchedStore } from '../attestations/batched-store';
import type { AttestationSettings } from '../attestations/issue-attestation';
import { attestationSettings, type AttestationConfig } from '../attestations/settings';
import type { ChainContexts } from '../chains/context';
import type { SolanaAccountsContext } from '../chains/solana-context';
import { confirmedSlotReader } from '../chains/solana-slots';
import { publicBaseUrl, type Config } from '../config';
import { SOLANA_CHAIN } from '../domain/chains';
import type { Logger } from '../config/logger';
import { listenForChanges } from '../db/changes';
import type { Database } from '../db/pool';
import type { BrokerConnection } from '../partner/broker-client';
import { onChainBrokerSigners } from '../partner/broker-signature';
import type { MarketDataPipeline, StoredMarketData } from '../price-feed/pipeline';
import type { Signers } from '../signing';
import { startGrpcServer } from '../streams/grpc-server';
import type { MarketStreamHubOptions } from '../streams/hub';
import { createMarketStreams, type MarketStreams, type StreamSettings } from '../streams/market-streams';
import { feedMarketStreams } from '../streams/process-feed';
import { createSecretBox } from '../webhooks/secret-box';
import type { Resolver } from '../webhooks/url-guard';
import type { WebhookServices } from '../api/services';
import { Parts, type Part } from './parts';

export type ApiSettings = AttestationConfig &
  Pick<
    Config,
    | 'HOST'
    | 'PORT'
    | 'GRPC_PORT'
    | 'PUBLIC_BASE_URL'
    | 'RATE_LIMIT_PER_SECOND'
    | 'RATE_LIMIT_BURST'
    | 'BODY_LIMIT_BYTES'
    | 'API_KEY_CACHE_SECONDS'
    | 'AUTH_FAILURES_PER_MINUTE'
    | 'TRUSTED_PROXIES'
    | 'CONSOLE_SESSION_MINUTES'
    | 'CHECK_ANSWERS'
    | 'STREAM_HEARTBEAT_MS'
    | 'STREAMS_PER_KEY'
    | 'STREAM_FRAME_WINDOW_MS'
    | 'TEMPORAL_TASK_QUEUE'
    | 'PRICE_SOURCE'
    | 'WEBHOOK_SECRET_KEYS'
    | 'WEBHOOK_ALLOWED_NETWORKS'
    | 'WEBHOOK_ALLOW_HTTP'
    | 'WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT'
  >;

export interface ProductAppParameters {
  config: ApiSettings;
  db: Database;
  logger: Logger;
  /** Starts, signals and queries workflows (without it, routes that need Temporal answer 503). */
  temporal?: Client;
  /** The attestation signers (without them the attestation routes answer 503). */
  signers?: Signers;
  /** The issuer's Solana accounts derived from its key (solanaAccountsOf): what Solana attestations are built with. */
  solana?: SolanaAccountsContext;
  /** Overrides of the attestation limits the configuration sets (a test's own). */
  attestationSettings?: Partial<AttestationSettings>;
  /** The chains: each one's RPC and watcher in `/ready`, and who may sign the broker's mint requests on it. */
  chains?: ChainContexts;
  /** The Solana ledger's JSON-RPC: its slot and the Solana watcher in `/ready`. */
  solanaRpcUrl?: string;
  /** Where admin-ingested ticks go (without it the ingestion route answers 404). */
  pipeline?: MarketDataPipeline;
  /** The live streams (without them the stream routes answer 404). */
  streams?: MarketStreams;
  /** Epoch ms; tests pin it. */
  clock?: () => number;
  /** With CHECK_ANSWERS on: told of every answer that matches the OpenAPI document (harness/answer-examples.ts). */
  observeAnswers?: (answer: CheckedAnswer) => void;
  /** The brokerage partner, whose records the console fetches live (a function: the sandbox may start later). */
  broker?: () => BrokerConnection | undefined;
  /** How webhook URLs' hosts are resolved when registered (default: the system's DNS; tests map names to addresses). */
  webhookResolver?: Resolver;
}

/** The webhook routes' services, when the configuration has the keys that seal endpoints' secrets. */
function webhookServices(config: ApiSettings, resolve: Resolver | undefined): WebhookServices | undefined {
  if (!config.WEBHOOK_SECRET_KEYS) return undefined;
  return {
    secrets: createSecretBox(config.WEBHOOK_SECRET_KEYS),
    policy: { allowedNetworks: config.WEBHOOK_ALLOWED_NETWORKS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
    resolve,
    maxEndpointsPerAccount: config.WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT,
  };
}

/** The readiness probes of the chains: each one's RPC, and its watcher (Solana's head: its confirmed slot). */
function chainProbes(db: Database, chains: ChainContexts, solanaRpcUrl: string | undefined): Record<string, ReadinessProbe> {
  const watched: WatchedChain[] = Object.values(chains).map((context) => ({ chain: context.network.chain, head: () => context.client.getBlockNumber({ cacheTime: 0 }) }));
  if (solanaRpcUrl) watched.push({ chain: SOLANA_CHAIN, head: confirmedSlotReader(solanaRpcUrl) });
  return {
    ...Object.fromEntries(watched.map(({ chain, head }) => [`chain ${chain}`, head])),
    ...chainWatcherProbes(db, watched),
  };
}

export function createProductApp(parameters: ProductAppParameters): App {
  const { config, db, chains, pipeline } = parameters;
  return createApp({
    config: { ...config, PUBLIC_BASE_URL: publicBaseUrl(config) },
    db,
    logger: parameters.logger,
    clock: parameters.clock,
    temporal: parameters.temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    streams: parameters.streams,
    chains,
    readinessChecks: chains || parameters.solanaRpcUrl ? chainProbes(db, chains ?? {}, parameters.solanaRpcUrl) : undefined,
    attestations: parameters.signers && {
      signers: parameters.signers,
      settings: { ...attestationSettings(config), ...parameters.attestationSettings },
      store: new BatchedStore(),
      solana: parameters.solana,
    },
    ingestTicks:
      pipeline &&
      (async (ticks) => {
        await pipeline.ingest(ticks);
        return { accepted: ticks.length };
      }),
    pricesSimulated: config.PRICE_SOURCE === 'simulated',
    brokerSigners: chains && onChainBrokerSigners(Object.fromEntries(Object.values(chains).map((context) => [context.network.chain, context.client]))),
    observeAnswers: parameters.observeAnswers,
    broker: parameters.broker,
    webhooks: webhookServices(config, parameters.webhookResolver),
  });
}

export interface StartApiParameters extends Omit<ProductAppParameters, 'streams'> {
  /** The database's URL: the change notifications and the other processes' live market data listen on it. */
  databaseUrl: string;
  /** The fan-out's timing and limits beyond the configuration's (tests shorten and tighten them). */
  streams?: Pick<MarketStreamHubOptions, 'closeGraceMs' | 'retainMs' | 'sweepMs'> & { settings?: Partial<StreamSettings> };
}

export interface RunningApi extends Part {
  app: App;
  /** e.g. `http://127.0.0.1:8080` */
  url: string;
  /** `host:port` of the gRPC live streams. */
  grpcAddress: string;
  streams: MarketStreams;
  /** The market-data pipeline's `onStored`: the batch goes to this process's live streams and to the other processes'. */
  onStored(stored: StoredMarketData): void;
}

/** Starts the API part; on any failure, stops what it had started. */
export async function startApi(parameters: StartApiParameters): Promise<RunningApi> {
  const { config, db, logger, pipeline } = parameters;
  const parts = new Parts(logger);
  try {
    const streams = createMarketStreams({
      db,
      logger,
      clock: parameters.clock,
      ...parameters.streams,
      settings: { heartbeatMs: config.STREAM_HEARTBEAT_MS, streamsPerKey: config.STREAMS_PER_KEY, frameWindowMs: config.STREAM_FRAME_WINDOW_MS, ...parameters.streams?.settings },
    });
    const streamsFeed = await feedMarketStreams({ hub: streams.hub, db, databaseUrl: parameters.databaseUrl, logger });
    parts.add({ name: 'stream feed', stop: () => streamsFeed.stop(), deadlineMs: 5_000 });
    await streams.hub.start();
    parts.add({ name: 'stream fan-out', stop: () => streams.hub.stop(), deadlineMs: 5_000 });
    const app = createProductApp({ ...parameters, streams });
    const listener = await listenForChanges(
      parameters.databaseUrl,
      (topic) => {
        app.services.forget(topic);
        if (topic === 'prices') pipeline?.reload();
      },
      {
        onConnectionLost: (error) => logger.warn({ err: error }, 'change notifications lost; reconnecting'),
        onReconnected: () => logger.info('change notifications reconnected'),
      },
    );
    parts.add({ name: 'change notifications', stop: () => listener.stop(), deadlineMs: 5_000 });
    const server = await listen(app, { host: config.HOST, port: config.PORT });
    parts.add({ name: 'API', stop: () => server.close(), deadlineMs: 10_000, kill: () => server.server.closeAllConnections() });
    parts.add({ name: 'live streams', stop: async () => streams.hub.endSubscriptions('the server is shutting down'), deadlineMs: 5_000 });
    const grpc = await startGrpcServer({
      streams,
      db,
      depth: { maxPriceAgeMs: config.QUOTE_MAX_PRICE_AGE_MS, limitedMaxOrderNotional: config.LIMITED_MAX_ORDER_NOTIONAL },
      keys: app.services.keys,
      host: config.HOST,
      port: config.GRPC_PORT,
      failuresPerMinute: config.AUTH_FAILURES_PER_MINUTE,
      logger,
    });
    parts.add({ name: 'gRPC streams', stop: () => grpc.stop(), deadlineMs: 5_000 });
    logger.info({ address: grpc.address }, 'gRPC live streams listening (proto/ondo/gm/backend/v1/backend.proto, proto/market_stream.proto)');
    const whole = parts.asPart('API');
    let stopped = false;
    return {
      ...whole,
      stop: () => {
        stopped = true;
        return whole.stop();
      },
      app,
      url: server.url,
      grpcAddress: grpc.address,
      streams,
      // Once stopped, batches the pipeline still stores go nowhere (the fan-out and its listeners are gone).
      onStored: (stored) => {
        if (!stopped) streamsFeed.onStored(stored);
      },
    };
  } catch (error) {
    await parts.stopped();
    throw error;
  }
}
