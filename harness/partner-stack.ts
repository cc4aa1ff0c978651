/**
 * The partner (brokerage) in-kind flow end to end on one machine, for the partner tests and the partner benchmark:
 * a local anvil chain with the product's contracts (the broker's signer granted its role), the issuer API listening
 * on a real port, the brokerage sandbox calling it with a partner key, the product's workflows on a worker with chain
 * and broker activities (embedded Temporal service, in memory), and the chain watcher. The development participant is
 * connected through the sandbox to an onboarded client whose wallet (anvil account 3) is enabled.
 *
 * The caller brings a migrated, seeded PostgreSQL database with latest prices; the stack owns it from then on and
 * drops it on `close()`. No jest here: a failed setup step throws an error saying which step, after stopping
 * whatever had started.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pino from 'pino';
import { getAddress, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createActivities } from '../activities';
import { createApp, type App } from '../api/app';
import { chainWatcherProbes } from '../api/health/readiness';
import { newBrokerCredential, seedBrokerSandbox, startBroker, type Credential, type RunningBroker, type SeededSandbox } from '../broker';
import { createApiKey, findActiveApiKey, type KeyScope } from '../db/queries/api-keys';
import { chainTokenAddresses } from '../db/queries/chains';
import type { Database } from '../db/pool';
import { Decimal } from '../domain/money';
import { BrokerClient } from '../partner/broker-client';
import { onChainBrokerSigners } from '../partner/broker-signature';
import { DEFAULT_CHAIN } from '../domain/chains';
import { loadSigners } from '../signing';
import { chainWatcherWorkflowId } from '../temporal/workflow-ids';
import { startTemporalServer } from '../temporal-server';
import type { chainWatcherWorkflow } from '../workflows';
import { startLocalChain, type LocalChain } from './local-chain';
import { cachedWorkflowBundle } from './workflow-bundle';
import { answerExampleRecorder } from './answer-examples';

export const ISSUER_ID = 'issuer-e2e';
export const CLIENT_EMAIL = 'ap@sandbox.test';
export const WALLET_INDEX = 3;
/** The attestations' settlement grace in the stack (API and chain watcher alike). */
const SETTLEMENT_GRACE_MS = 60_000;

const ROOT = path.join(__dirname, '..');

/** A database the stack takes over (and drops on close). */
export interface PartnerStackDatabase {
  db: Database;
  drop(): Promise<void>;
}

export interface StartPartnerStackParameters {
  database: PartnerStackDatabase;
  /** The chain watcher's poll interval (default 1 000 ms, the product's CHAIN_POLL_INTERVAL_MS default). */
  chainPollIntervalMs?: number;
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
  broker: RunningBroker;
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

/** Only errors from the SDK's native runtime, unless this process already installed one (another benchmark, a test helper). */
function installQuietRuntime(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error;
  }
}

/** Starts the stack (about 10 s on a quiet machine); on any failure, stops what had started and throws. */
export async function startPartnerStack(parameters: StartPartnerStackParameters): Promise<PartnerStack> {
  const { database } = parameters;
  const { db } = database;
  // Teardown in reverse order of start (the watcher, the worker, the sandbox, the API, Temporal, anvil, the
  // database); each step runs whatever the others do.
  const teardown: (() => Promise<unknown>)[] = [() => database.drop()];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const failures: unknown[] = [];
    for (const step of teardown.reverse()) await step().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw new AggregateError(failures, `closing the partner stack: ${failures.length} step(s) failed`);
  };

  try {
    // The chain, with the broker's signer allowed to sign mint requests.
    const brokerSigner = privateKeyToAccount(generatePrivateKey());
    const chainName = DEFAULT_CHAIN;
    const signers = loadSigners({ dataDir: mkdtempSync(path.join(tmpdir(), 'partner-stack-signers-')) });
    const chain = await startLocalChain({ db, chain: chainName, attestationSigner: signers.evm.address, brokerSigner: brokerSigner.address });
    teardown.push(() => chain.stop());
    const { context, issuer, deployment } = chain;

    // Temporal: the embedded service in memory, a client, and a worker over the product's workflows (started below).
    installQuietRuntime();
    const temporalServer = await startTemporalServer();
    teardown.push(() => temporalServer.stop());
    const [code, nativeConnection, connection] = await Promise.all([
      cachedWorkflowBundle('issuer-workflows', require.resolve(path.join(ROOT, 'workflows')), [path.join(ROOT, 'workflows'), path.join(ROOT, 'temporal')]),
      NativeConnection.connect({ address: temporalServer.address, grpcCompression: { codec: 'none' } }),
      Connection.connect({ address: temporalServer.address }),
    ]);
    teardown.push(() => nativeConnection.close(), () => connection.close());
    const client = new Client({ connection, namespace: temporalServer.namespace });
    const taskQueue = `issuer-partner-${process.pid}-${Date.now()}`;
    let worker: Worker | undefined;
    let running: Promise<void> | undefined;
    const stopWorker = async () => {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      worker = undefined;
    };

    // The issuer API on a real port, with one key per scope and the partner key.
    const app = createApp({
      config: {
        PUBLIC_BASE_URL: 'http://issuer.test',
        RATE_LIMIT_PER_SECOND: 10_000,
        RATE_LIMIT_BURST: 10_000,
        BODY_LIMIT_BYTES: 64 * 1024,
        API_KEY_CACHE_SECONDS: 0,
        AUTH_FAILURES_PER_MINUTE: 10_000,
        // Every answer is checked against the OpenAPI document; one that is off it fails as a 500.
        CHECK_ANSWERS: 'fail',
      },
      db,
      observeAnswers: answerExampleRecorder(),
      logger: pino({ level: 'silent' }),
      clock: () => Date.now(),
      temporal: client,
      taskQueue,
      attestations: {
        signers,
        settings: { maxPriceAgeMs: 15_000, limitedMaxOrderNotional: new Decimal('10000'), offhoursGlobalExposure: new Decimal('1000000'), offhoursAssetExposure: new Decimal('250000') },
        taskQueue,
        settlementGraceMs: SETTLEMENT_GRACE_MS,
      },
      ingestTicks: async (ticks) => ({ accepted: ticks.length }),
      readinessChecks: chainWatcherProbes(db, [chainName]),
      brokerSigners: onChainBrokerSigners({ [chainName]: context.client }),
    });
    const keys = {} as Record<KeyScope, string>;
    for (const scope of ['read', 'write', 'admin'] as const) keys[scope] = (await createApiKey(db, { name: `partner stack ${scope}`, scope })).secret;
    const server: Server = createServer(app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    teardown.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const partnerKey = (await createApiKey(db, { name: 'brokerage partner', scope: 'partner' })).secret;

    // The sandbox, calling the issuer with the partner key.
    const participant = newBrokerCredential('ap');
    const issuerCredential = newBrokerCredential('issuer');
    const seeded = await seedBrokerSandbox(db, { brokerCredential: participant });
    const brokerOptions = {
      db,
      host: '127.0.0.1',
      port: 0,
      issuerApiUrl: apiUrl,
      partnerApiKey: partnerKey,
      issuerId: ISSUER_ID,
      issuerCredential,
      brokerCredential: participant,
      signer: brokerSigner,
      issuerContracts: { ethereum: deployment.issuer },
      logger: pino({ level: 'silent' }),
      retryInitialMs: 100,
      retryMaxMs: 1_000,
      pollMs: 100,
    };
    const stack = {} as PartnerStack;
    stack.broker = await startBroker(brokerOptions);
    teardown.push(() => stack.broker.stop());
    const brokerPort = Number(new URL(stack.broker.url).port);

    const startWorker = async () => {
      worker = await Worker.create({
        connection: nativeConnection,
        namespace: temporalServer.namespace,
        taskQueue,
        workflowBundle: { code },
        activities: createActivities({
          db,
          chains: { chains: { [chainName]: context }, issuer, temporal: client, taskQueue, blockRange: 50, settlementGraceMs: SETTLEMENT_GRACE_MS },
          broker: new BrokerClient({ url: stack.broker.url, accountId: seeded.issuerAccount.accountId, key: issuerCredential.key, secret: issuerCredential.secret, timeoutMs: 2_000 }),
        }),
      });
      running = worker.run();
    };
    await startWorker();
    teardown.push(stopWorker);
    const watcherId = chainWatcherWorkflowId(context.network.chainId);
    await client.workflow.start<typeof chainWatcherWorkflow>('chainWatcherWorkflow', {
      workflowId: watcherId,
      taskQueue,
      args: [{ chain: chainName, pollIntervalMs: parameters.chainPollIntervalMs ?? 1_000 }],
    });
    teardown.push(() => client.workflow.getHandle(watcherId).terminate('partner stack closed').catch(() => undefined));

    // Onboard the write key's account as the client, enable its wallet, connect the participant through the sandbox.
    const clientId = (await findActiveApiKey(db, keys.write))?.accountId;
    if (!clientId) throw new Error('the write key has no account to onboard as the client');
    const wallet = getAddress(chain.walletOf(WALLET_INDEX).account.address);
    const admin = { 'x-api-key': keys.admin };
    Object.assign(stack, {
      database,
      chain,
      temporal: { client, taskQueue, stopWorker },
      api: { app, url: apiUrl, keys },
      apiUrl,
      partnerKey,
      seeded,
      participant,
      issuerCredential,
      brokerSigner,
      clientId,
      accountId: seeded.accounts[0]!.accountId,
      wallet,
      tokens: await chainTokenAddresses(db, chainName),
      startWorker,
      async restartBroker() {
        stack.broker = await startBroker({ ...brokerOptions, port: brokerPort });
      },
      close,
    } satisfies Omit<PartnerStack, 'broker'>);

    const onboard = await callJson(`${apiUrl}/v1/tokenization/clients/${clientId}`, { method: 'PUT', headers: admin, body: { email: CLIENT_EMAIL } });
    if (onboard.status !== 200) throw new Error(`onboarding the client answered ${onboard.status}: ${JSON.stringify(onboard.body)}`);
    const enabled = await callJson(`${apiUrl}/v1/tokenization/clients/${clientId}/wallets`, { method: 'POST', headers: admin, body: { chainId: chainName, address: wallet } });
    if (![200, 202].includes(enabled.status)) throw new Error(`enabling the wallet answered ${enabled.status}: ${JSON.stringify(enabled.body)}`);
    await waitUntil(
      `wallet ${wallet} to be registered on chain for client ${clientId}`,
      async () => {
        const read = await callJson(`${apiUrl}/v1/tokenization/clients/${clientId}`, { method: 'GET', headers: admin });
        const wallets = (read.body as { wallets?: { address: string; registration: string }[] } | undefined)?.wallets ?? [];
        return wallets.some((entry) => entry.address === wallet.toLowerCase() && entry.registration === 'registered');
      },
      30_000,
    );
    const connected = await callJson(`${stack.broker.url}/v1/accounts/${stack.accountId}/tokenization/connect`, {
      method: 'POST',
      headers: { authorization: basic(participant) },
      body: { issuer: ISSUER_ID },
    });
    if (connected.status !== 200) throw new Error(`connecting the participant answered ${connected.status}: ${JSON.stringify(connected.body)}`);
    return stack;
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
