/**
 * The partner (brokerage) in-kind flow end to end on one machine, for the partner tests and the partner benchmark:
 * the product's parts (start/) as `npm start` composes them, with what a test run changes (harness/settings.ts) — one
 * local anvil chain with the product's contracts (the broker's signer granted its role), the embedded Temporal service
 * in memory, the worker over the cached workflow bundle with the chain watcher, the API on free ports, the brokerage
 * sandbox calling it with a partner key and quick retries. The development participant is connected through the
 * sandbox to an onboarded client whose wallet (anvil account 3) is enabled through the API.
 *
 * The caller brings a migrated, seeded PostgreSQL database with latest prices; the stack owns it from then on and
 * drops it on `close()`. No jest here: a failed setup step throws an error saying which step, after stopping
 * whatever had started.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { getAddress, type LocalAccount } from 'viem';
import type { App } from '../api/app';
import type { Credential, RunningBroker, SeededSandbox } from '../broker';
import type { BrokerConnection } from '../partner/broker-client';
import { createApiKey, findActiveApiKey, type KeyScope } from '../db/queries/api-keys';
import { chainTokenAddresses } from '../db/queries/chain-deployments';
import type { Database } from '../db/pool';
import { startApi } from '../start/api';
import { newSandboxSecrets, sandboxConnection, startSandbox, type StartSandboxParameters } from '../start/partner-sandbox';
import { Parts } from '../start/parts';
import { startTemporal } from '../start/temporal';
import { loadSigners } from '../signing';
import { startWorker as startProductWorker, type RunningWorker } from '../worker/start-worker';
import { answerExampleRecorder } from './answer-examples';
import { startLocalChain, type LocalChain } from './local-chain';
import { pinnedClock, quietLogger, testConfig } from './settings';
import { productBundle } from './workflow-bundle';

export const ISSUER_ID = 'issuer-e2e';
export const CLIENT_EMAIL = 'ap@sandbox.test';
export const WALLET_INDEX = 3;

/** A database the stack takes over (and drops on close). */
export interface PartnerStackDatabase {
  db: Database;
  url: string;
  drop(): Promise<void>;
}

export interface StartPartnerStackParameters {
  database: PartnerStackDatabase;
  /** The chain watcher's poll interval (default 1 000 ms, the product's CHAIN_POLL_INTERVAL_MS default). */
  chainPollIntervalMs?: number;
  /** HEDGE_WINDOW_MS and RESERVES_INTERVAL_MS (defaults 300 ms and 2 s: a test sees hedges and reserves move quickly). */
  hedgeWindowMs?: number;
  reservesIntervalMs?: number;
  /** ATTESTATION_SETTLEMENT_GRACE_MS (default the tests' 60 s): how long after its expiry an attestation is recorded expired. */
  settlementGraceMs?: number;
  /** The sandbox's trading side (default: its clock pinned into a regular session, fills after 100 ms). */
  trading?: StartSandboxParameters['trading'];
}

export type PartnerChain = LocalChain;

export interface PartnerTemporal {
  client: Client;
  taskQueue: string;
  /** Stops the worker only (see `PartnerStack.startWorker`). */
  stopWorker(): Promise<void>;
}

export interface PartnerApi {
  app: App;
  /** e.g. `http://127.0.0.1:41234` */
  url: string;
  /** One issuer API key per scope. */
  keys: Record<KeyScope, string>;
}

export interface PartnerStack {
  database: PartnerStackDatabase;
  chain: PartnerChain;
  temporal: PartnerTemporal;
  api: PartnerApi;
  apiUrl: string;
  partnerKey: string;
  /** The sandbox as it runs now (`restartBroker` replaces it). */
  readonly broker: RunningBroker;
  seeded: SeededSandbox;
  participant: Credential;
  issuerCredential: Credential;
  /** The broker's EIP-712 mint-request signer (BROKER_SIGNER_ROLE on the issuer contract). */
  brokerSigner: LocalAccount;
  /** The client (issuer account) the participant is connected to. */
  clientId: string;
  /** The development participant's sandbox account id. */
  accountId: string;
  wallet: `0x${string}`;
  tokens: Record<string, `0x${string}`>;
  /** Starts the worker again (after `temporal.stopWorker()`), with the chain and broker activities. */
  startWorker(): Promise<void>;
  /** Starts the sandbox again after `broker.stop()` (same database, same port). */
  restartBroker(): Promise<void>;
  /** Stops everything the stack started and drops its database; safe to call twice. */
  close(): Promise<void>;
}

export function basic(credential: Credential): string {
  return `Basic ${Buffer.from(`${credential.key}:${credential.secret}`).toString('base64')}`;
}

/** Polls `check` until it answers true, or throws `what` after `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Calls `url` with a JSON body (if any) and answers the status and the parsed body. */
async function callJson(url: string, init: { method: string; headers: Record<string, string>; body?: object }): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: init.method,
    headers: { ...init.headers, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Starts the stack (about 10 s on a quiet machine); on any failure, stops what had started and throws. */
export async function startPartnerStack(parameters: StartPartnerStackParameters): Promise<PartnerStack> {
  const { database } = parameters;
  const { db } = database;
  const logger = quietLogger();
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: `issuer-partner-${process.pid}-${Date.now()}`,
    CHAIN_POLL_INTERVAL_MS: parameters.chainPollIntervalMs ?? 1_000,
    CHAIN_SCAN_BLOCK_RANGE: 50,
    HEDGE_WINDOW_MS: parameters.hedgeWindowMs ?? 300,
    RESERVES_INTERVAL_MS: parameters.reservesIntervalMs ?? 2_000,
    ...(parameters.settlementGraceMs === undefined ? {} : { ATTESTATION_SETTLEMENT_GRACE_MS: parameters.settlementGraceMs }),
  });
  // Stopped in reverse order of start (the worker, the sandbox, the API, Temporal, the chain), the database dropped last.
  const parts = new Parts(logger);
  parts.add({ name: 'database', stop: () => database.drop() });
  const close = () => parts.stopped();

  try {
    const secrets = newSandboxSecrets();
    const signers = loadSigners({ dataDir: mkdtempSync(path.join(tmpdir(), 'partner-stack-signers-')) });
    const chain = await startLocalChain({ db, attestationSigner: signers.evm.address, brokerSigner: secrets.signer.address });
    parts.add({ name: 'chain', stop: () => chain.stop() });
    const temporal = await startTemporal(config, { logger, inMemory: true });
    parts.add(temporal);
    // The sandbox starts once the API listens; the console reads the broker through it from then on.
    const brokerOfApi: { connection?: BrokerConnection } = {};
    const api = await startApi({
      broker: () => brokerOfApi.connection,
      config,
      db,
      databaseUrl: database.url,
      logger,
      temporal: temporal.client,
      signers,
      chains: chain.running.chains,
      observeAnswers: answerExampleRecorder(),
    });
    parts.add(api);
    const keys = {} as Record<KeyScope, string>;
    for (const scope of ['read', 'write', 'admin'] as const) keys[scope] = (await createApiKey(db, { name: `partner stack ${scope}`, scope })).secret;

    // The sandbox, calling the issuer with a partner key of its own.
    const sandbox = await startSandbox({
      db,
      logger,
      host: '127.0.0.1',
      port: 0,
      issuerApiUrl: api.url,
      issuerId: ISSUER_ID,
      secrets,
      deployments: [chain.deployment],
      timing: { retryInitialMs: 100, retryMaxMs: 1_000, pollMs: 100 },
      trading: parameters.trading ?? { clock: pinnedClock(), fillLatencyMs: 100 },
    });
    parts.add(sandbox);

    // The product's worker, with the chain and broker activities and the chain's watcher; stopped and started again by tests.
    const bundleCode = await productBundle();
    const broker = sandboxConnection(sandbox.url, secrets, { timeoutMs: 2_000 });
    brokerOfApi.connection = broker;
    let worker: RunningWorker | undefined;
    const startWorker = async () => {
      worker = await startProductWorker({ config, temporal, db, logger, bundleCode, chains: chain.running, broker });
    };
    const stopWorker = async () => {
      await worker?.stop();
      worker = undefined;
    };
    await startWorker();
    parts.add({ name: 'worker', stop: stopWorker, deadlineMs: 15_000 });

    // Onboard the write key's account as the client, enable its wallet, connect the participant through the sandbox.
    const clientId = (await findActiveApiKey(db, keys.write))?.accountId;
    if (!clientId) throw new Error('the write key has no account to onboard as the client');
    const wallet = getAddress(chain.walletOf(WALLET_INDEX).account.address);
    const admin = { 'x-api-key': keys.admin };
    const onboard = await callJson(`${api.url}/v1/tokenization/clients/${clientId}`, { method: 'PUT', headers: admin, body: { email: CLIENT_EMAIL } });
    if (onboard.status !== 200) throw new Error(`onboarding the client answered ${onboard.status}: ${JSON.stringify(onboard.body)}`);
    const enabled = await callJson(`${api.url}/v1/tokenization/clients/${clientId}/wallets`, { method: 'POST', headers: admin, body: { chainId: chain.chain, address: wallet } });
    if (![200, 202].includes(enabled.status)) throw new Error(`enabling the wallet answered ${enabled.status}: ${JSON.stringify(enabled.body)}`);
    await waitUntil(
      `wallet ${wallet} to be registered on chain for client ${clientId}`,
      async () => {
        const read = await callJson(`${api.url}/v1/tokenization/clients/${clientId}`, { method: 'GET', headers: admin });
        const wallets = (read.body as { wallets?: { address: string; registration: string }[] } | undefined)?.wallets ?? [];
        return wallets.some((entry) => entry.address === wallet.toLowerCase() && entry.registration === 'registered');
      },
      30_000,
    );
    await sandbox.connectParticipant();

    return {
      database,
      chain,
      temporal: { client: temporal.client, taskQueue: config.TEMPORAL_TASK_QUEUE, stopWorker },
      api: { app: api.app, url: api.url, keys },
      apiUrl: api.url,
      partnerKey: sandbox.partnerApiKey,
      get broker() {
        return sandbox.broker;
      },
      seeded: sandbox.seeded,
      participant: secrets.participant,
      issuerCredential: secrets.issuer,
      brokerSigner: secrets.signer,
      clientId,
      accountId: sandbox.seeded.accounts[0]!.accountId,
      wallet,
      tokens: await chainTokenAddresses(db, chain.chain),
      startWorker,
      restartBroker: () => sandbox.restart(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
