/**
 * The real app (start/api.ts's `createProductApp`, configured as harness/settings.ts runs the product) on a fresh
 * clone of the test database, with one key per scope, for supertest. `clock` pins the service's notion of now where
 * a test needs a particular session.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { AttestationSettings } from '../../attestations/issue-attestation';
import type { ChainContexts } from '../../chains/context';
import type { SolanaAccountsContext } from '../../chains/solana-context';
import type { Queryable } from '../../db/pool';
import { addNonceAccounts } from '../../db/queries/solana-nonces';
import { encodeBase58, loadSigners, type Signers } from '../../signing';
import { recordSolanaMints, solanaAccountsOf } from '../../start/solana';
import { issuerSolanaSecretKey } from '../../start/solana-setup';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { App } from '../../api/app';
import { createApiKey, type KeyScope } from '../../db/queries/api-keys';
import { MarketDataPipeline } from '../../price-feed/pipeline';
import { cloneTemplateDatabase, type TestDb } from './database';
import { recordFixtureDeployments } from '../../harness/fixture-deployments';
import { answerExampleRecorder } from '../../harness/answer-examples';
import { quietLogger, testConfig, TEST_BASE_URL } from '../../harness/settings';
import { createProductApp } from '../../start/api';
import type { MarketStreams } from '../../streams/market-streams';
import type { Config } from '../../config';
import type { Logger } from '../../config/logger';
import type { Resolver } from '../../webhooks/url-guard';

export { TEST_BASE_URL };

let signers: { dataDir: string; signers: Signers } | undefined;
let solanaAccounts: Promise<SolanaAccountsContext> | undefined;

function testKeys(): { dataDir: string; signers: Signers } {
  if (!signers) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-test-signers-'));
    signers = { dataDir, signers: loadSigners({ dataDir }) };
  }
  return signers;
}

/** Development signers in a directory of their own, shared by the test file. */
export function testSigners(): Signers {
  return testKeys().signers;
}

/** The 64-byte Solana secret key of `testSigners()`: the issuer of the test's Solana accounts. */
export function testSolanaSecretKey(): Uint8Array {
  return issuerSolanaSecretKey({ keys: {}, dataDir: testKeys().dataDir });
}

/** The issuer's Solana accounts derived from `testSigners()`' key, as `npm start` derives them (start/solana.ts). */
export function testSolanaAccounts(): Promise<SolanaAccountsContext> {
  solanaAccounts ??= solanaAccountsOf({ keys: {}, dataDir: testKeys().dataDir });
  return solanaAccounts;
}

/** How many nonce accounts `createTestApi` puts in the pool by default: addresses of the right form, on no ledger. */
const OFF_LEDGER_NONCE_ACCOUNTS = 8;

/** Nonce accounts for a pool no ledger backs: Solana attestations can be built over them, never sent. */
export async function addOffLedgerNonceAccounts(db: Queryable, count: number): Promise<void> {
  const issuer = (await testSolanaAccounts()).issuer;
  const key = (label: string) => encodeBase58(createHash('sha256').update(label).digest());
  await addNonceAccounts(
    db,
    Array.from({ length: count }, (_, index) => ({ address: key(`test nonce account ${index}`), authority: issuer, nonce: key(`test nonce value ${index}`) })),
  );
}

export interface TestApi extends TestDb {
  app: App;
  http: TestAgent;
  keys: Record<KeyScope, string>;
  /** Moves the service's clock (epoch ms); undefined goes back to real time. */
  setNow(now: number | undefined): void;
  /** Moves the clock to `now` and makes every latest price observed then (so it can be quoted). */
  tradeAt(now: number): Promise<void>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  rateLimitPerSecond?: number;
  rateLimitBurst?: number;
  /** Failed authentications per minute and client address (default: high enough not to matter). */
  authFailuresPerMinute?: number;
  temporal?: Client;
  /** Task queue the routes start workflows on (with `temporal`). */
  taskQueue?: string;
  /** Overrides of the attestation limit settings. */
  attestationSettings?: Partial<AttestationSettings>;
  /** Use this database instead of a fresh clone (the caller drops it). */
  database?: TestDb;
  /** Record fixture deployments of both EVM chains (harness/fixture-deployments.ts) so attestations can be signed; default true. */
  fixtureDeployments?: boolean;
  /** The live-stream fan-out (without it the stream routes answer 404); the caller stops it. */
  streams?: MarketStreams;
  /** Where the app logs (default: nowhere). */
  logger?: Logger;
  /** Default `external`: ingestion accepted; `simulated` refuses it as `npm start` on the simulated feed does. */
  priceSource?: Config['PRICE_SOURCE'];
  /** The chains `/ready` reports (each one's RPC and watcher). */
  chains?: ChainContexts;
  /**
   * Nonce accounts put in the Solana pool: default OFF_LEDGER_NONCE_ACCOUNTS of `addOffLedgerNonceAccounts` (no
   * ledger behind them); 0 for a test that registers its own (a ledger's).
   */
  offLedgerNonceAccounts?: number;
  /** The Solana ledger `/ready` reports (its slot and the Solana watcher). */
  solanaRpcUrl?: string;
  /** The webhook routes' settings over `testConfig`'s, and the resolver their URL checks use (default: the system's DNS). */
  webhooks?: Partial<Pick<Config, 'WEBHOOK_SECRET_KEYS' | 'WEBHOOK_ALLOWED_NETWORKS' | 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT'>> & { resolve?: Resolver };
}

export async function createTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const database = options.database ?? (await cloneTemplateDatabase());
  if (options.fixtureDeployments ?? true) await recordFixtureDeployments(database.db);
  // As npm start does: the Solana mints derived from the issuer key are the tokens' addresses on solana-900.
  const solana = await testSolanaAccounts();
  await recordSolanaMints(database.db, solana);
  await addOffLedgerNonceAccounts(database.db, options.offLedgerNonceAccounts ?? OFF_LEDGER_NONCE_ACCOUNTS);
  let pinned: number | undefined;
  const pipeline = new MarketDataPipeline(database.db);
  const defaults = testConfig();
  const { resolve: webhookResolver, ...webhookSettings } = options.webhooks ?? {};
  const app = createProductApp({
    config: testConfig({
      RATE_LIMIT_PER_SECOND: options.rateLimitPerSecond ?? defaults.RATE_LIMIT_PER_SECOND,
      RATE_LIMIT_BURST: options.rateLimitBurst ?? defaults.RATE_LIMIT_BURST,
      AUTH_FAILURES_PER_MINUTE: options.authFailuresPerMinute ?? defaults.AUTH_FAILURES_PER_MINUTE,
      TEMPORAL_TASK_QUEUE: options.taskQueue ?? defaults.TEMPORAL_TASK_QUEUE,
      // No simulated feed runs here: prices come from the tests, through the pipeline or the ingestion route.
      PRICE_SOURCE: options.priceSource ?? 'external',
      ...webhookSettings,
    }),
    db: database.db,
    logger: options.logger ?? quietLogger(),
    clock: () => pinned ?? Date.now(),
    temporal: options.temporal,
    streams: options.streams,
    signers: testSigners(),
    solana,
    attestationSettings: options.attestationSettings,
    chains: options.chains,
    solanaRpcUrl: options.solanaRpcUrl,
    observeAnswers: answerExampleRecorder(),
    pipeline,
    webhookResolver,
  });
  const keys = {} as Record<KeyScope, string>;
  for (const scope of ['read', 'write', 'admin'] as const) {
    keys[scope] = (await createApiKey(database.db, { name: `test ${scope}`, scope })).secret;
  }
  const setNow = (now: number | undefined): void => {
    pinned = now;
    for (const topic of ['prices', 'candles', 'status', 'session-limits', 'corporate-actions', 'catalogue'] as const) app.services.forget(topic);
  };
  return {
    ...database,
    app,
    http: request(app.koa.callback()),
    keys,
    setNow,
    async tradeAt(now) {
      setNow(now);
      await database.db.query('UPDATE latest_prices SET observed_at = $1', [now]);
    },
    close: () => (options.database ? Promise.resolve() : database.drop()),
  };
}
