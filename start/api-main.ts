/**
 * The API role (`npm run api`, start/role.ts): the HTTP API and the gRPC live streams against DATABASE_URL, starting
 * workflows on TEMPORAL_ADDRESS, composed of the parts `npm start` uses — the chains RPC_URL_<CHAIN> names (for
 * `/ready` and the broker's on-chain signers), the attestation signers from their variables (a role makes none), an
 * ingestion pipeline for admin-posted ticks, the API. Run as many as the load needs behind a load balancer: what
 * they share is in PostgreSQL (limits under its locks, caches dropped through NOTIFY, live market data announced).
 */
import { loadSigners } from '../signing';
import { EVM_KEY_VARIABLE, SOLANA_KEY_VARIABLE } from '../signing/key-schemas';
import { CHAIN_VARIABLES } from '../domain/chains';
import { configuredBroker } from '../partner/broker-client';
import type { StoredMarketData } from '../price-feed/pipeline';
import { startApi } from './api';
import { startMarketData } from './market-data';
import { runRole } from './role';
import { solanaAccountsOf } from './solana';
import { startTemporal } from './temporal';

runRole({
  name: 'api',
  usage: `usage: npm run api   the HTTP API and the gRPC live streams, configured by the environment (README, "Running in production"):
  DATABASE_URL, TEMPORAL_ADDRESS, ATTESTATION_EVM_PRIVATE_KEY and ATTESTATION_SOLANA_SECRET_KEY (required), PORT, GRPC_PORT,
  PUBLIC_BASE_URL, TRUSTED_PROXIES, PRICE_SOURCE (as the feed's: ticks posted to the API are refused while it is simulated),
  RPC_URL_<CHAIN>, SOLANA_RPC_URL (its slot and the Solana watcher in /ready), CONSOLE_SESSION_MINUTES, BROKER_URL/BROKER_ACCOUNT_ID/BROKER_KEY/BROKER_SECRET (the console's live
  broker records), WEBHOOK_SECRET_KEYS (unset: the webhook routes answer 503) with WEBHOOK_ALLOWED_NETWORKS,
  WEBHOOK_ALLOW_HTTP and WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT, METRICS_PORT; stops on SIGINT or SIGTERM`,
  variables: [
    'PORT',
    'GRPC_PORT',
    'PUBLIC_BASE_URL',
    'TRUSTED_PROXIES',
    'RATE_LIMIT_PER_SECOND',
    'RATE_LIMIT_BURST',
    'BODY_LIMIT_BYTES',
    'API_KEY_CACHE_SECONDS',
    'AUTH_FAILURES_PER_MINUTE',
    'CHECK_ANSWERS',
    'STREAM_HEARTBEAT_MS',
    'STREAMS_PER_KEY',
    'STREAM_FRAME_WINDOW_MS',
    'QUOTE_MAX_PRICE_AGE_MS',
    'LIMITED_MAX_ORDER_NOTIONAL',
    'OFFHOURS_GLOBAL_EXPOSURE_LIMIT',
    'OFFHOURS_ASSET_EXPOSURE_LIMIT',
    'DATA_DIR',
    'PRICE_SOURCE',
    'CONSOLE_SESSION_MINUTES',
    'BROKER_URL',
    'BROKER_ACCOUNT_ID',
    'BROKER_KEY',
    'BROKER_SECRET',
    ...CHAIN_VARIABLES,
    'CHAIN_ISSUER_PRIVATE_KEY',
    'SOLANA_RPC_URL',
    EVM_KEY_VARIABLE,
    SOLANA_KEY_VARIABLE,
    'WEBHOOK_SECRET_KEYS',
    'WEBHOOK_ALLOWED_NETWORKS',
    'WEBHOOK_ALLOW_HTTP',
    'WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT',
  ],
  async start({ config, logger, db, parts, startChains }) {
    for (const variable of [EVM_KEY_VARIABLE, SOLANA_KEY_VARIABLE] as const) {
      if (!config[variable]) throw new Error(`invalid configuration: ${variable}: required by npm run api (only npm start makes development signer keys)`);
    }
    const signers = loadSigners({ keys: config, dataDir: config.DATA_DIR });
    const temporal = await startTemporal(config, { logger });
    parts.add(temporal);
    const chains = await startChains(config);
    // Ticks posted to the ingestion route go through this process's pipeline; the simulated feed is the feed role's.
    let toLiveStreams: (stored: StoredMarketData) => void = () => undefined;
    const { pipeline } = await startMarketData(
      { PRICE_SOURCE: 'external', PRICE_TICK_MS: 1_000, SIMULATION_SEED: 0 },
      { db, logger, now: Date.now(), onStored: (stored) => toLiveStreams(stored) },
    );
    parts.add({ name: 'ingestion pipeline', stop: async () => undefined });
    // The broker whose records the console shows live (optional: without it the console says so).
    const broker = configuredBroker(config);
    const api = await startApi({
      config,
      db,
      databaseUrl: config.DATABASE_URL,
      logger,
      temporal: temporal.client,
      signers,
      solana: await solanaAccountsOf({ keys: config, dataDir: config.DATA_DIR }),
      chains: chains?.chains,
      solanaRpcUrl: config.SOLANA_RPC_URL,
      pipeline,
      broker: () => broker,
    });
    parts.add(api);
    toLiveStreams = api.onStored;
    logger.info({ url: api.url, grpc: api.grpcAddress }, 'API listening');
    return {};
  },
});
