/**
 * The production shape: the roles as separate OS processes on one PostgreSQL and one durable Temporal service of its
 * own (`npm run temporal:server -- --database-url …`): two API processes, two workers and one feed, with the local
 * chain and the brokerage sandbox in the test process. The first admin key comes from `npm run keys`. Through both
 * APIs a 50-way race on the attestation count limit is exact; every attestation has exactly one workflow; an SSE
 * client on one API sees the prices the feed stores; a partner mint and a redemption each complete exactly once while
 * both workers poll; the worker running a mint's on-chain step is killed with SIGKILL and the other finishes it. Every
 * role's /metrics is scraped, its series moving as the product works, and the alert rules of deploy/ name only
 * series the roles expose. Every process is stopped by its pid whatever happens.
 *
 * The race runs at the real time on SPYon, which trades in every session, with the same limits set for every
 * session; one that straddled a change of session (where the lock that serialises orders changes) is run again.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection, Client } from '@temporalio/client';
import { getAddress, maxUint256, parseEventLogs } from 'viem';
import { anvilAccount } from '../../chains/anvil';
import { freePort, freePorts } from '../../config/free-port';
import { issuerAbi, stockTokenAbi } from '../../contracts/abi';
import { createApiKey, findActiveApiKey } from '../../db/queries/api-keys';
import { chainTokenAddresses } from '../../db/queries/chain-deployments';
import { findLatestPrice } from '../../db/queries/latest-prices';
import { basic, waitUntil } from '../../harness/partner-stack';
import { startLocalChain, type LocalChain } from '../../harness/local-chain';
import { quietLogger } from '../../harness/settings';
import { productBundle } from '../../harness/workflow-bundle';
import { loadSigners } from '../../signing';
import { DEV_KEY_FILE } from '../../signing/keys';
import { newSandboxSecrets, sandboxConnection, startSandbox, type RunningSandbox, type SandboxSecrets } from '../../start/partner-sandbox';
import { attestationWorkflowId, partnerMintWorkflowId } from '../../temporal/workflow-ids';
import { SseClient } from '../streams/support';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { roleEnv, startProcess, type TestProcess } from '../../harness/processes';

const ROOT = path.join(__dirname, '..', '..');
const ISSUER_ID = 'issuer-production-test';
const WALLET_INDEX = 3;
const RACE = 50;
const LIMIT = 7;
const SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const;

interface Role {
  process: TestProcess;
  metricsUrl: string;
}
interface ApiRole extends Role {
  url: string;
}

let database: TestDb;
let chain: LocalChain;
let sandbox: RunningSandbox | undefined;
let temporal: Client;
let temporalConnection: Connection | undefined;
const started: TestProcess[] = [];
const apis: ApiRole[] = [];
const workers: Role[] = [];
let feed: Role;
const keys = { admin: '', write: '', read: '' };
let clientId: string;
let wallet: `0x${string}`;
const scrapesBefore = new Map<string, Samples>();
let secrets: SandboxSecrets;

/** One sample per `name{labels}` of a Prometheus text answer, and the names it declares (`# TYPE`). */
interface Samples {
  values: Map<string, number>;
  declared: Set<string>;
}

async function scrape(url: string): Promise<Samples> {
  const text = await (await fetch(url)).text();
  const values = new Map<string, number>();
  const declared = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) declared.add(type[1]!);
    const sample = /^([a-zA-Z_:][\w:]*)(\{.*\})? (\S+)/.exec(line);
    if (sample && !line.startsWith('#')) values.set(`${sample[1]}${sample[2] ?? ''}`, Number(sample[3]));
  }
  return { values, declared };
}

/** The sum of the samples of `name` whose labels contain every `label="value"` of `labels`. */
function total(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [series, value] of samples.values) {
    const [seriesName] = series.split('{');
    if (seriesName !== name) continue;
    if (Object.entries(labels).every(([label, wanted]) => series.includes(`${label}="${wanted}"`))) sum += value;
  }
  return sum;
}

function launch(name: string, entry: string, args: string[], env: NodeJS.ProcessEnv): TestProcess {
  const child = startProcess(name, entry, args, env);
  started.push(child);
  return child;
}

/** A JSON answer, read field by field as fetch's `json()` would hand it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many routes, read field by field
type Answer = { status: number; body: any };

async function call(url: string, init: { method?: string; key?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.key ? { 'x-api-key': init.key } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function eventually<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  let value: T | undefined | false;
  await waitUntil(what, async () => Boolean((value = await check())), timeoutMs, 200);
  return value as T;
}

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  const scratch = mkdtempSync(path.join(tmpdir(), 'issuer-production-'));
  loadSigners({ dataDir: scratch });
  const signerKeys = JSON.parse(readFileSync(path.join(scratch, DEV_KEY_FILE), 'utf8')) as { evmPrivateKey: string; solanaSecretKey: string };
  const signers = loadSigners({ dataDir: scratch });
  secrets = newSandboxSecrets();
  chain = await startLocalChain({ db: database.db, attestationSigner: signers.evm.address, brokerSigner: secrets.signer.address });
  const bundlePath = path.join(scratch, 'workflow-bundle.js');
  writeFileSync(bundlePath, await productBundle());

  // The durable Temporal service on its own port, its state in the same PostgreSQL.
  const temporalPort = await freePort();
  const temporalProcess = launch('temporal', 'temporal-server/main.ts', ['--port', String(temporalPort), '--database-url', database.url], roleEnv());
  await temporalProcess.waitFor(/Durable Temporal listening/);
  const temporalAddress = `127.0.0.1:${temporalPort}`;
  temporalConnection = await Connection.connect({ address: temporalAddress });
  temporal = new Client({ connection: temporalConnection });

  const shared = {
    ...roleEnv(),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `issuer-production-${process.pid}`,
    RPC_URL_ETHEREUM: chain.context.network.rpcUrl,
    CHAIN_ISSUER_PRIVATE_KEY: anvilAccount(0).privateKey,
  };
  const apiEnv = async (): Promise<[NodeJS.ProcessEnv, number, number]> => {
    const [port, grpcPort, metricsPort] = (await freePorts(3)) as [number, number, number];
    return [
      {
        ...shared,
        PORT: String(port),
        GRPC_PORT: String(grpcPort),
        METRICS_PORT: String(metricsPort),
        ATTESTATION_EVM_PRIVATE_KEY: signerKeys.evmPrivateKey,
        ATTESTATION_SOLANA_SECRET_KEY: signerKeys.solanaSecretKey,
        RATE_LIMIT_PER_SECOND: '10000',
        RATE_LIMIT_BURST: '10000',
        API_KEY_CACHE_SECONDS: '0',
        CHECK_ANSWERS: 'fail',
      },
      port,
      metricsPort,
    ];
  };
  for (const name of ['api-1', 'api-2']) {
    const [env, port, metricsPort] = await apiEnv();
    apis.push({ process: launch(name, 'start/api-main.ts', [], env), url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
  }
  const feedMetrics = await freePort();
  feed = {
    process: launch('feed', 'start/feed-main.ts', [], { ...shared, METRICS_PORT: String(feedMetrics), PRICE_TICK_MS: '500' }),
    metricsUrl: `http://127.0.0.1:${feedMetrics}/metrics`,
  };
  await Promise.all([...apis, feed].map((role) => role.process.waitFor(/"msg":"(api|feed) running"/, 90_000)));

  // The first admin key, as a production database gets it.
  const created = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/keys.ts'), 'create', '--scope', 'admin', '--name', 'first admin'], {
    cwd: ROOT,
    env: { ...roleEnv(), DATABASE_URL: database.url },
  });
  keys.admin = /secret: (\S+)/.exec(created.stdout)![1]!;
  keys.write = (await createApiKey(database.db, { name: 'production test write', scope: 'write' })).secret;
  keys.read = (await createApiKey(database.db, { name: 'production test read', scope: 'read' })).secret;

  // The brokerage sandbox calls the first API; the workers call the sandbox.
  sandbox = await startSandbox({
    db: database.db,
    logger: quietLogger(),
    host: '127.0.0.1',
    port: 0,
    issuerApiUrl: apis[0]!.url,
    issuerId: ISSUER_ID,
    secrets,
    deployments: [chain.deployment],
    timing: { retryInitialMs: 100, retryMaxMs: 1_000, pollMs: 100 },
  });
  const broker = sandboxConnection(sandbox.url, secrets);
  for (const name of ['worker-1', 'worker-2']) {
    const metricsPort = await freePort();
    const env = {
      ...shared,
      METRICS_PORT: String(metricsPort),
      WORKFLOW_BUNDLE_PATH: bundlePath,
      CHAIN_POLL_INTERVAL_MS: '200',
      CHAIN_SCAN_BLOCK_RANGE: '50',
      BROKER_URL: broker.url,
      BROKER_ACCOUNT_ID: broker.accountId,
      BROKER_KEY: broker.key,
      BROKER_SECRET: broker.secret,
    };
    workers.push({ process: launch(name, 'start/worker-main.ts', [], env), metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
  }
  await Promise.all(workers.map((role) => role.process.waitFor(/"msg":"worker running"/, 90_000)));
  for (const role of [...apis, ...workers, feed]) scrapesBefore.set(role.process.name, await scrape(role.metricsUrl));

  // The write key's account is the partner's client, its wallet enabled (registered on chain by a worker).
  clientId = (await findActiveApiKey(database.db, keys.write))!.accountId!;
  wallet = getAddress(chain.walletOf(WALLET_INDEX).account.address);
  expect((await call(`${apis[1]!.url}/v1/tokenization/clients/${clientId}`, { method: 'PUT', key: keys.admin, body: { email: 'ap@sandbox.test' } })).status).toBe(200);
  expect([200, 202]).toContain((await call(`${apis[0]!.url}/v1/tokenization/clients/${clientId}/wallets`, { method: 'POST', key: keys.admin, body: { chainId: chain.chain, address: wallet } })).status);
  await eventually(
    'the wallet registered on chain',
    async () => {
      const read = await call(`${apis[1]!.url}/v1/tokenization/clients/${clientId}`, { key: keys.admin });
      return (read.body.wallets as { address: string; registration: string }[]).some((entry) => entry.address === wallet.toLowerCase() && entry.registration === 'registered');
    },
    30_000,
  );
  await sandbox.connectParticipant();
}, 240_000);

afterAll(async () => {
  await temporalConnection?.close().catch(() => undefined);
  await sandbox?.stop().catch(() => undefined);
  // Workers and APIs first, the Temporal service after them, every one by its pid.
  await Promise.all(started.filter((child) => child.name !== 'temporal').map((child) => child.stop()));
  await Promise.all(started.map((child) => child.stop()));
  await chain?.stop();
  await database?.drop();
}, 120_000);

/** Explains a failed expectation with the processes' last output. */
function roleOutput(): string {
  return started.map((child) => `--- ${child.name}\n${child.output().slice(-3_000)}`).join('\n');
}

test('a 50-way race on the attestation count limit through both APIs is exact, and every attestation has exactly one workflow', async () => {
  for (const session of SESSIONS) {
    const set = await call(`${apis[0]!.url}/v1/limits/session/SPYon/${session}`, {
      method: 'PUT',
      key: keys.admin,
      body: { tradable: true, maxAttestationCount: String(LIMIT), maxActiveNotionalValue: '1000000' },
    });
    expect(set.status).toBe(200);
  }
  const sessionNow = async () => (await call(`${apis[1]!.url}/v1/status/market`, { key: keys.read })).body.marketStatus as string;

  let created: string[] = [];
  let refused: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    // A fresh account for each attempt; its price observed now (the feed keeps it so from here on).
    const write = attempt === 0 ? keys.write : (await createApiKey(database.db, { name: `race ${attempt}`, scope: 'write' })).secret;
    await database.db.query(`UPDATE latest_prices SET observed_at = greatest(observed_at, $1) WHERE symbol = 'SPYon'`, [Date.now()]);
    const before = await sessionNow();
    const answers = await Promise.all(
      Array.from({ length: RACE }, (_, index) =>
        call(`${apis[index % 2]!.url}/v1/attestations`, { method: 'POST', key: write, body: { symbol: 'SPYon', side: 'buy', tokenAmount: '0.01', duration: 'long' } }),
      ),
    );
    const after = await sessionNow();
    created = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.attestationId as string);
    refused = answers.filter((answer) => answer.status !== 200).map((answer) => `${answer.status} ${answer.body.code}`);
    if (before === after) break;
  }
  expect({ created: created.length, refused }).toEqual({ created: LIMIT, refused: Array(RACE - LIMIT).fill('400 MAX_ATTESTATIONS') });

  for (const attestationId of created) {
    const runs = await eventually(
      `the workflow of attestation ${attestationId}`,
      async () => {
        const listed = [];
        for await (const run of temporal.workflow.list({ query: `WorkflowId = '${attestationWorkflowId(attestationId)}'` })) listed.push(run);
        return listed.length > 0 && listed;
      },
      20_000,
    );
    expect(runs.map((run) => run.workflowId)).toEqual([attestationWorkflowId(attestationId)]);
  }
  const { rows } = await database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM attestations WHERE symbol = 'SPYon' AND state = 'outstanding'`);
  expect(rows[0]!.n).toBe(LIMIT);
}, 60_000);

test('an SSE client on one API sees the prices the feed stores', async () => {
  const client = await SseClient.open(`${apis[1]!.url}/v1/stream/prices?symbols=SPYon`, { 'x-api-key': keys.read });
  try {
    const first = (await client.next()).data as { timestamp: number };
    let matched = false;
    for (let events = 0; events < 40 && !matched; events++) {
      const change = (await client.next(undefined, 10_000)).data as { timestamp: number; primaryMarket: { price: string }; underlyingMarket: { price: string } };
      expect(change.timestamp).toBeGreaterThan(first.timestamp);
      const stored = await findLatestPrice(database.db, 'SPYon');
      if (stored?.observedAt !== change.timestamp) continue;
      expect([change.primaryMarket.price, change.underlyingMarket.price].map(Number)).toEqual([Number(stored.tokenPrice), Number(stored.underlyingPrice)]);
      matched = true;
    }
    expect(matched).toBe(true);
  } finally {
    client.close();
  }
}, 60_000);

const brokerAccount = () => sandbox!.seeded.accounts[0]!.accountId;
const participant = () => ({ authorization: basic(secrets.participant) });

async function mint(qty: string): Promise<{ tokenizationRequestId: string; issuerRequestId: string }> {
  const submitted = await call(`${sandbox!.url}/v1/accounts/${brokerAccount()}/tokenization/mint`, {
    method: 'POST',
    headers: participant(),
    body: { underlying_symbol: 'AAPL', qty, issuer: ISSUER_ID, network: 'ethereum', wallet_address: wallet },
  });
  expect(submitted.status).toBe(201);
  const tokenizationRequestId = submitted.body.tokenization_request_id as string;
  const issuerRequestId = await eventually(
    'the issuer request of the mint',
    async () => (await call(`${sandbox!.url}/v1/accounts/${brokerAccount()}/tokenization/requests/${tokenizationRequestId}`, { headers: participant() })).body.issuer_request_id as string | undefined,
    30_000,
  );
  return { tokenizationRequestId, issuerRequestId };
}

async function completed(issuerRequestId: string, timeoutMs: number): Promise<{ state: string; txHash: string }> {
  return await eventually(
    `request ${issuerRequestId} completed`,
    async () => {
      const request = (await call(`${apis[1]!.url}/v1/tokenization/requests/${issuerRequestId}`, { key: keys.admin })).body;
      if (request.state === 'rejected' || request.state === 'needs_review') throw new Error(`request ${issuerRequestId} is ${request.state}: ${request.reason}\n${roleOutput()}`);
      return request.state === 'completed' && request;
    },
    timeoutMs,
  );
}

const countRows = async (sql: string, values: unknown[]) => (await database.db.query<{ n: number }>(sql, values)).rows[0]!.n;

async function mintedOnce(tokenizationRequestId: string, issuerRequestId: string): Promise<void> {
  const logs = await chain.client.getContractEvents({ address: chain.deployment.issuer, abi: issuerAbi, eventName: 'IssuerMint', fromBlock: 0n });
  expect(logs.filter((log) => log.args.tokenizationRequestId === tokenizationRequestId)).toHaveLength(1);
  expect(await countRows(`SELECT count(*)::int AS n FROM chain_transactions WHERE key LIKE $1`, [`${partnerMintWorkflowId(issuerRequestId)}:%`])).toBe(1);
  expect(await countRows(`SELECT count(*)::int AS n FROM broker.journal WHERE tokenization_request_id = $1`, [tokenizationRequestId])).toBe(1);
}

test('a partner mint and a redemption each complete exactly once while both workers poll', async () => {
  const { tokenizationRequestId, issuerRequestId } = await mint('2');
  await completed(issuerRequestId, 60_000);
  await mintedOnce(tokenizationRequestId, issuerRequestId);

  const holder = chain.walletOf(WALLET_INDEX);
  const aapl = (await chainTokenAddresses(database.db, chain.chain)).AAPLon as `0x${string}`;
  const balance = await chain.client.readContract({ address: aapl, abi: stockTokenAbi, functionName: 'balanceOf', args: [wallet] });
  await chain.client.waitForTransactionReceipt({ hash: await holder.writeContract({ address: aapl, abi: stockTokenAbi, functionName: 'approve', args: [chain.deployment.issuer, maxUint256] }) });
  const burn = await chain.client.waitForTransactionReceipt({
    hash: await holder.writeContract({ address: chain.deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [aapl, balance / 2n] }),
  });
  const [redeemed] = parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: burn.logs });
  const redemptionId = `redemption-1-${burn.transactionHash.toLowerCase()}-${redeemed!.logIndex}`;
  await completed(redemptionId, 60_000);
  expect(await countRows(`SELECT count(*)::int AS n FROM redemptions WHERE tx_hash = $1`, [burn.transactionHash.toLowerCase()])).toBe(1);
  // One record at the broker, completed, and one journal entry of the shares delivered back.
  expect(await countRows(`SELECT count(*)::int AS n FROM broker.tokenization_requests WHERE issuer_request_id = $1 AND status = 'completed'`, [redemptionId])).toBe(1);
  expect(
    await countRows(
      `SELECT count(*)::int AS n FROM broker.journal j JOIN broker.tokenization_requests r USING (tokenization_request_id) WHERE r.issuer_request_id = $1`,
      [redemptionId],
    ),
  ).toBe(1);
}, 150_000);

test("every role's metrics move as the product works", async () => {
  const now = new Map<string, Samples>();
  for (const role of [...apis, ...workers, feed]) now.set(role.process.name, await scrape(role.metricsUrl));
  const before = (name: string) => scrapesBefore.get(name)!;
  const after = (name: string) => now.get(name)!;

  // The APIs: requests by operation and status, attestations created and refused, across both processes.
  const created = apis.map((api) => total(after(api.process.name), 'issuer_attestations_created_total') - total(before(api.process.name), 'issuer_attestations_created_total'));
  const refused = apis.map((api) => total(after(api.process.name), 'issuer_attestations_refused_total', { code: 'MAX_ATTESTATIONS' }));
  expect(created.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(LIMIT);
  expect(refused.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(RACE - LIMIT);
  for (const api of apis) {
    const samples = after(api.process.name);
    expect(total(samples, 'issuer_http_requests_total', { operation: 'createAttestation', status: '200' }) + total(samples, 'issuer_http_requests_total', { operation: 'createAttestation', status: '400' })).toBeGreaterThanOrEqual(RACE / 2);
    expect(total(samples, 'issuer_http_request_duration_seconds_count', { operation: 'createAttestation' })).toBeGreaterThanOrEqual(RACE / 2);
    expect(total(samples, 'issuer_process_info', { role: 'api' })).toBe(1);
  }
  // Business readings from the database, in every role: outstanding attestations, completed partner requests.
  for (const role of [...apis, ...workers, feed]) {
    const samples = after(role.process.name);
    expect(total(samples, 'issuer_attestations_outstanding', { chain: 'ethereum-1' })).toBe(LIMIT);
    expect(total(samples, 'issuer_partner_requests', { kind: 'mint', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'issuer_partner_requests', { kind: 'redeem', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'issuer_db_pool_connections_max')).toBe(20);
    expect(samples.values.has('nodejs_eventloop_lag_seconds')).toBe(true);
  }
  // The workers: the chain watcher (seen and final heads, lag) and the Temporal SDK's own series.
  for (const worker of workers) {
    const samples = after(worker.process.name);
    expect(total(samples, 'issuer_chain_watcher_seen_head', { chain: 'ethereum-1' })).toBeGreaterThan(total(before(worker.process.name), 'issuer_chain_watcher_seen_head', { chain: 'ethereum-1' }));
    expect(total(samples, 'issuer_chain_watcher_final_block', { chain: 'ethereum-1' })).toBeGreaterThan(0);
    expect(samples.values.has('issuer_chain_watcher_lag_blocks{chain="ethereum-1"}')).toBe(true);
    expect([...samples.declared].some((name) => name.startsWith('temporal_'))).toBe(true);
  }
  // Whichever worker ran the watcher's polls timed their steps.
  for (const step of ['read', 'record', 'deliver']) {
    const polls = workers.map((worker) => total(after(worker.process.name), 'issuer_chain_scan_step_seconds_count', { chain: 'ethereum-1', step }));
    expect(polls.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
  }
  const workflowTasks = workers.map((worker) => total(after(worker.process.name), 'temporal_workflow_task_execution_latency_count') + total(after(worker.process.name), 'temporal_workflow_task_execution_latency_seconds_count'));
  expect(workflowTasks.reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
  // The feed: its pool works (prices stored), nothing of the API or the worker.
  expect(total(after('feed'), 'issuer_process_info', { role: 'feed' })).toBe(1);
  expect(total(after('feed'), 'issuer_http_requests_total')).toBe(0);

  // Every series an alert rule of deploy/ names is one a role declares.
  const declared = new Set([...now.values()].flatMap((samples) => [...samples.declared]));
  const rules = readFileSync(path.join(ROOT, 'deploy', 'prometheus', 'alerts.yml'), 'utf8');
  const named = new Set([...rules.matchAll(/\b((?:issuer|temporal)_[a-z_]+)/g)].map((match) => match[1]!.replace(/_(bucket|count|sum)$/, '')));
  expect(named.size).toBeGreaterThan(5);
  expect([...named].filter((name) => !declared.has(name))).toEqual([]);
}, 60_000);

test('the worker running a mint on chain is killed with SIGKILL; the other worker finishes it, exactly once', async () => {
  const { tokenizationRequestId, issuerRequestId } = await mint('1.5');
  const handle = temporal.workflow.getHandle(partnerMintWorkflowId(issuerRequestId));
  // The worker that holds the mint's on-chain step (its identity is `pid@host`).
  const runningOn = await eventually(
    'the on-chain mint step to start on a worker',
    async () => {
      const description = await handle.describe().catch(() => undefined);
      const pending = description?.raw.pendingActivities?.find((activity) => activity.activityType?.name === 'mintPartnerTokens' && activity.lastWorkerIdentity);
      return pending?.lastWorkerIdentity ?? undefined;
    },
    30_000,
  );
  const victim = workers.find((worker) => runningOn.startsWith(`${worker.process.pid}@`));
  expect(victim).toBeDefined();
  await victim!.process.kill();
  expect(await victim!.process.exited).toBe('SIGKILL');

  await completed(issuerRequestId, 150_000);
  await mintedOnce(tokenizationRequestId, issuerRequestId);
}, 200_000);
