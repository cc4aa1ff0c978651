/** What route handlers share: the database, the clock, caches, and how to announce a change. */
import type { Client as TemporalClient } from '@temporalio/client';
import type { BatchedStore } from '../../attestations/batched-store';
import type { AttestationSettings } from '../../attestations/issue-attestation';
import type { ChainContexts } from '../../chains/context';
import type { SolanaAccountsContext } from '../../chains/solana-context';
import type { Config } from '../../config';
import type { CheckedAnswer } from '../contract/answer-check';
import type { Signers } from '../../signing';
import { publishChange, type ChangeTopic } from '../../db/changes';
import type { Database } from '../../db/pool';
import type { PriceTickInput } from '../../price-feed/ingest';
import type { MarketStreams } from '../../streams/market-streams';
import type { BrokerConnection } from '../../partner/broker-client';
import type { BrokerSignerDirectory } from '../../partner/broker-signature';
import { ISSUER_TASK_QUEUE } from '../../temporal/task-queues';
import { ApiKeyResolver } from '../../access/api-keys';
import type { ReadinessProbe } from '../health/readiness';
import { ResponseCache } from '../framework/cache';
import type { Logger } from '../../config/logger';
import type { SecretBox } from '../../webhooks/secret-box';
import type { Resolver, UrlPolicy } from '../../webhooks/url-guard';
import { AssetDirectory } from './asset-directory';

export type ApiConfig = Pick<Config, 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_BURST' | 'BODY_LIMIT_BYTES' | 'API_KEY_CACHE_SECONDS' | 'AUTH_FAILURES_PER_MINUTE'> & {
  /** Proxies whose X-Forwarded-For names the client (default none). */
  TRUSTED_PROXIES?: Config['TRUSTED_PROXIES'];
  /** How long a console session lasts (default 8 h). */
  CONSOLE_SESSION_MINUTES?: number;
  /** The base URL clients reach (config's `publicBaseUrl`); error documentation links point under it. */
  PUBLIC_BASE_URL: string;
  /** Default `off`. */
  CHECK_ANSWERS?: Config['CHECK_ANSWERS'];
};

export interface ApiDependencies {
  config: ApiConfig;
  db: Database;
  logger: Logger;
  /** Epoch ms; tests pin it. */
  clock?: () => number;
  /** Where admin-ingested ticks go (the market-data pipeline). Without it the ingestion route answers 404. */
  ingestTicks?: (ticks: PriceTickInput[]) => Promise<{ accepted: number }>;
  /** The simulated feed owns the prices (PRICE_SOURCE=simulated): the ingestion route refuses with 409 PRICES_SIMULATED. */
  pricesSimulated?: boolean;
  /** Temporal client for starting, signalling and inspecting workflows. */
  temporal?: TemporalClient;
  /** The task queue workflows started by routes run on (default: the issuer's). */
  taskQueue?: string;
  /** Signing and limits of attestations; without it the attestation routes answer 503. */
  attestations?: AttestationServices;
  /** The EVM chains this process reaches (token reads on chain); without one, its chain reads answer 503 CHAIN_UNAVAILABLE. */
  chains?: ChainContexts;
  /** Probes of further dependencies `GET /ready` reports beside PostgreSQL and Temporal (e.g. one per chain). */
  readinessChecks?: Record<string, ReadinessProbe>;
  /** The live price and candle fan-out the pipeline feeds; without it the stream routes answer 404. */
  streams?: MarketStreams;
  /** With `CHECK_ANSWERS` on: told of every answer that matches the OpenAPI document (how its examples are recorded). */
  observeAnswers?: (answer: CheckedAnswer) => void;
  /** Who may sign the broker's mint requests on each chain; without it issuances answer 503 CHAIN_UNAVAILABLE. */
  brokerSigners?: BrokerSignerDirectory;
  /** The brokerage partner (the console fetches its records live); a function, as a sandbox may start after the API. */
  broker?: () => BrokerConnection | undefined;
  /** Sealing endpoints' secrets and checking their URLs; without it every webhook route answers 503 WEBHOOKS_UNAVAILABLE. */
  webhooks?: WebhookServices;
}

export interface WebhookServices {
  /** Seals the secrets of new endpoints (and opens one for an idempotent replay of its creation). */
  secrets: SecretBox;
  /** Where endpoints may point (WEBHOOK_ALLOWED_NETWORKS, WEBHOOK_ALLOW_HTTP). */
  policy: UrlPolicy;
  /** How URLs' hosts are resolved when checked (default: the system's DNS; tests map names themselves). */
  resolve?: Resolver;
  /** WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT. */
  maxEndpointsPerAccount: number;
}

export interface AttestationServices {
  signers: Signers;
  settings: AttestationSettings;
  store: BatchedStore;
  /** The issuer's Solana mints and treasury; without them Solana attestations are refused CHAIN_UNAVAILABLE. */
  solana?: SolanaAccountsContext;
}

export interface ApiServices {
  config: ApiConfig;
  db: Database;
  logger: Logger;
  clock: () => number;
  cache: ResponseCache;
  assets: AssetDirectory;
  keys: ApiKeyResolver;
  ingestTicks?: ApiDependencies['ingestTicks'];
  pricesSimulated: boolean;
  temporal?: TemporalClient;
  taskQueue: string;
  attestations?: AttestationServices;
  readinessChecks?: Record<string, ReadinessProbe>;
  chains: ChainContexts;
  streams?: MarketStreams;
  brokerSigners?: BrokerSignerDirectory;
  broker?: () => BrokerConnection | undefined;
  webhooks?: WebhookServices;
  /** Drops this process's cached answers for `topic` now, and tells other processes. */
  changed(topic: ChangeTopic): Promise<void>;
  /** Drops cached answers for a topic another process announced. */
  forget(topic: ChangeTopic): void;
}

export function createServices(dependencies: ApiDependencies): ApiServices {
  const clock = dependencies.clock ?? Date.now;
  const cache = new ResponseCache();
  const assets = new AssetDirectory(dependencies.db);
  const keys = new ApiKeyResolver(dependencies.db, dependencies.config.API_KEY_CACHE_SECONDS * 1000);
  const forget = (topic: ChangeTopic): void => {
    if (topic === 'api-keys') keys.clear();
    else if (topic === 'catalogue') {
      assets.invalidate();
      cache.invalidate(topic);
    } else cache.invalidate(topic);
  };
  return {
    config: dependencies.config,
    db: dependencies.db,
    logger: dependencies.logger,
    clock,
    cache,
    assets,
    keys,
    ingestTicks: dependencies.ingestTicks,
    pricesSimulated: dependencies.pricesSimulated ?? false,
    temporal: dependencies.temporal,
    readinessChecks: dependencies.readinessChecks,
    chains: dependencies.chains ?? {},
    taskQueue: dependencies.taskQueue ?? ISSUER_TASK_QUEUE,
    attestations: dependencies.attestations,
    streams: dependencies.streams,
    brokerSigners: dependencies.brokerSigners,
    broker: dependencies.broker,
    webhooks: dependencies.webhooks,
    forget,
    async changed(topic) {
      forget(topic);
      await publishChange(dependencies.db, topic);
    },
  };
}
