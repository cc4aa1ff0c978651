/**
 * The campaign's stack: the product in its production shape, with a handle on every fault the campaign injects.
 *
 * In this process, parts of `npm start` (start/*.ts): the embedded PostgreSQL under `dataDir` with its migrations and
 * catalogue, both EVM chains on anvil with the contracts deployed, the Solana local ledger with its mints, treasury,
 * nonce pool and development wallets, and the brokerage sandbox. As separate OS processes (harness/processes.ts), as
 * test/production does: the durable Temporal service on that PostgreSQL, two APIs, two workers and the feed.
 *
 * Between the parts, the campaign's own proxies on loopback: the workers reach the broker through an HTTP proxy that
 * misbehaves on demand (campaign/broker-faults.ts), and PostgreSQL (workers, APIs), each EVM chain, the Solana ledger
 * and the Temporal service (workers) through TCP proxies that add latency and cut connections
 * (campaign/fault-proxy.ts). Every port stays the same across restarts, so a restarted part is found where it was.
 *
 * `target.stack` is what `npm start` writes to `.data/stack.json` (also written to `<dataDir>/stack.json`, so that
 * `npm run campaign:check` with DATA_DIR=<dataDir> finds the database and the chains). `stop()` stops every process
 * by its pid whatever happens, then the in-process parts; should this process end first, the reaper
 * (harness/reaper.ts) kills the processes' groups with it.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { anvilAccount } from '../chains/anvil';
import type { Logger } from '../config/logger';
import { freePort, freePorts } from '../config/free-port';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded';
import { createPool, type Database } from '../db/pool';
import { createApiKey, findActiveApiKey } from '../db/queries/api-keys';
import { CATALOGUE } from '../domain/catalogue';
import { chainVariables, SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import { roleEnv, startProcess, type TestProcess } from '../harness/processes';
import { tagProcessesStartedHere } from '../harness/reaper';
import { productBundle } from '../harness/workflow-bundle';
import { loadSigners, signerPublicInfo } from '../signing';
import { DEV_KEY_FILE } from '../signing/keys';
import type { SolanaLedgerOptions } from '../solana-ledger';
import { ensureDeployments, startLocalChains } from '../start/chains';
import { prepareDatabase } from '../start/database';
import { ensureDevWallets, listSolanaDevWallets } from '../start/dev-wallets';
import { DEVELOPMENT_ISSUER_ID, newSandboxSecrets, onboardDevelopmentClient, sandboxConnection, startSandbox } from '../start/partner-sandbox';
import { Parts } from '../start/parts';
import { recordSolanaMints, registerNoncePool, solanaAccountsOf, startSolana } from '../start/solana';
import { ensureSolanaSetup, issuerSolanaSecretKey } from '../start/solana-setup';
import { stackChains, writeStackFile, type StackFile } from '../start/stack-file';
import { marketHoursAt } from '../broker/trading/market';
import { startBrokerProxy } from './broker-faults';
import { startLinkProxy, type LinkProxy } from './fault-proxy';
import type { CampaignTarget, FaultHandles, ProductProcess } from './model';
import { seededRandom, type Random } from './random';

const ROOT = path.join(__dirname, '..');
const TASK_QUEUE = 'issuer-campaign';
/** How long a role may take to say it runs (the machine is shared; the first start compiles). */
const READY_TIMEOUT_MS = 120_000;
/**
 * The workers' ATTESTATION_SETTLEMENT_GRACE_MS: a minute instead of ten, so a run settles soon after its last expiry;
 * the watchers here are final within seconds, so a late report past it is a finding, not noise.
 */
export const CAMPAIGN_SETTLEMENT_GRACE_MS = 60_000;

/**
 * The brokerage sandbox's clock: the real one while it trades, else moved into its next trading day (a minute after
 * it opens), so hedges fill and backing is judged whatever day the campaign runs; the product keeps the real clock.
 */
function tradingClock(now = Date.now()): () => number {
  const hours = marketHoursAt(now);
  const shift = hours.open || hours.nextOpenAt === undefined ? 0 : hours.nextOpenAt + 60_000 - now;
  return () => Date.now() + shift;
}

/** The Solana ledger's pace: a slot every 100 ms, final 8 slots later (the product waits for finality). */
const SOLANA_LEDGER: SolanaLedgerOptions = { slotMs: 100, confirmedLag: 1, finalizedLag: 8 };

export interface CampaignStack {
  target: CampaignTarget;
  faults: FaultHandles;
  /** A pool on the stack's PostgreSQL (this process's own). */
  db: Database;
  /** A client of the Temporal service, on a connection of its own (not through a proxy). */
  temporal: Client;
  /** The workers' settlement grace (CAMPAIGN_SETTLEMENT_GRACE_MS unless the environment says otherwise). */
  settlementGraceMs: number;
  /** The Temporal task queue of the workers. */
  taskQueue: string;
  /** Where the workers reach the broker: the broker proxy (the sandbox's own URL is `target.stack.broker.url`). */
  brokerUrl: string;
  /** Every process's last output, to explain a failure. */
  output(): string;
  stop(): Promise<void>;
}

export interface CampaignStackParameters {
  /** Where PostgreSQL's cluster, the signer keys, the workflow bundle and stack.json are kept. */
  dataDir: string;
  logger: Logger;
  /** Aborting it stops a start under way and whatever had started. */
  signal?: AbortSignal;
  /** The randomness of the link faults' cuts (default: seed 0). */
  random?: Random;
  /** The Solana ledger's pace (default: a slot every 100 ms, final 8 slots later). */
  solanaLedger?: SolanaLedgerOptions;
  /** Variables added to each role's environment, over the stack's own (e.g. a worker's HEDGE_WINDOW_MS). */
  environment?: Partial<Record<'api' | 'worker' | 'feed', Record<string, string>>>;
}

/** A product role as its own OS process, started again with the same arguments and environment. */
class RoleProcess implements ProductProcess {
  private current: TestProcess;

  constructor(
    readonly name: string,
    readonly role: ProductProcess['role'],
    private readonly entry: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly ready: RegExp,
  ) {
    this.current = startProcess(name, entry, args, env);
  }

  /** Resolves once it says it runs; rejects with its output when it exits first. */
  async started(): Promise<void> {
    await this.current.waitFor(this.ready, READY_TIMEOUT_MS);
  }

  async kill(): Promise<void> {
    await this.current.kill();
  }

  async restart(): Promise<void> {
    await this.current.stop();
    this.current = startProcess(this.name, this.entry, this.args, this.env);
    await this.started();
  }

  running(): boolean {
    return this.current.running();
  }

  output(): string {
    return this.current.output();
  }

  stop(): Promise<void> {
    return this.current.stop();
  }
}

async function jsonRpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const answer = (await response.json()) as { result?: T; error?: { message: string } };
  if (answer.error) throw new Error(`${method} on ${url}: ${answer.error.message}`);
  return answer.result as T;
}

/** Blocks above the chain's finalized block that a reorganisation may replace without reaching it (one kept as margin). */
async function reorgRoom(rpcUrl: string): Promise<number> {
  const [head, finalized] = await Promise.all([
    jsonRpc<{ number: string }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false]),
    jsonRpc<{ number: string } | null>(rpcUrl, 'eth_getBlockByNumber', ['finalized', false]),
  ]);
  return Math.max(0, Number(head.number) - (finalized ? Number(finalized.number) : 0) - 1);
}

export async function startCampaignStack(parameters: CampaignStackParameters): Promise<CampaignStack> {
  const { logger, signal } = parameters;
  const dataDir = path.resolve(parameters.dataDir);
  const random = parameters.random ?? seededRandom(0, 'links');
  const parts = new Parts(logger);
  const roles: RoleProcess[] = [];
  const stopRoles = async () => {
    // The roles first, the Temporal service after them, every one by its pid.
    await Promise.all(roles.filter((role) => role.role !== 'temporal').map((role) => role.stop()));
    await Promise.all(roles.map((role) => role.stop()));
  };
  const stopAll = async () => {
    try {
      await stopRoles();
    } finally {
      await parts.stopped();
    }
  };
  // Aborted during the start: the roles stop (a wait for one to run fails at once), then every part.
  const onAbort = (): void => void stopAll();
  signal?.addEventListener('abort', onAbort, { once: true });
  const step = () => signal?.throwIfAborted();
  try {
    step();
    // PostgreSQL, the chains and the roles are stopped with this process should it end before stop() (harness/reaper.ts).
    tagProcessesStartedHere();
    // Searchable by all, so that PostgreSQL (run as the `postgres` user under root) keeps its cluster inside it.
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o755);

    const postgresPort = await freePort();
    let postgres: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir, port: postgresPort, onLog: (line) => logger.debug(line) });
    parts.add({ name: 'PostgreSQL', stop: () => postgres.stop(), deadlineMs: 20_000, kill: () => postgres.kill() });
    const databaseUrl = postgres.url;
    // The proxies reach the server over TCP (this process reaches it through its socket).
    const postgresTcp = { host: '127.0.0.1', port: postgresPort };
    const db = createPool(databaseUrl, 10, (error) => logger.debug({ err: error }, 'an idle campaign database connection failed'));
    parts.add({ name: 'database pool', stop: () => db.end(), deadlineMs: 5_000 });
    await prepareDatabase(db, { now: Date.now(), logger });
    step();

    const signersDir = path.join(dataDir, 'signers');
    const signers = loadSigners({ dataDir: signersDir });
    const signerKeys = JSON.parse(readFileSync(path.join(signersDir, DEV_KEY_FILE), 'utf8')) as { evmPrivateKey: string; solanaSecretKey: string };
    const secrets = newSandboxSecrets();

    const chains = await startLocalChains({ logger });
    parts.add(chains);
    const deployments = await ensureDeployments({ db, chains, attestationSigner: signers.evm.address, brokerSigner: secrets.signer.address, logger });
    step();

    const solana = await startSolana({ SOLANA_RPC_URL: undefined, SOLANA_RPC_PORT: 0, DATA_DIR: dataDir }, logger, parameters.solanaLedger ?? SOLANA_LEDGER);
    parts.add(solana);
    const solanaIssuerKey = issuerSolanaSecretKey({ keys: {}, dataDir: signersDir });
    const solanaSetup = await ensureSolanaSetup({
      rpcUrl: solana.rpcUrl,
      issuerSecretKey: solanaIssuerKey,
      symbols: CATALOGUE.map((asset) => asset.symbol),
      noncePoolSize: 8,
      faucet: true,
      wallets: true,
      logger,
    });
    const solanaAccounts = await solanaAccountsOf({ keys: {}, dataDir: signersDir });
    await recordSolanaMints(db, solanaAccounts);
    await registerNoncePool(db, solanaSetup.chain);
    step();

    // The links, each a proxy of its own on loopback.
    const links: LinkProxy[] = [];
    const link = async (name: string, target: { host: string; port: number }) => {
      const proxy = await startLinkProxy({ name, target, random: random.fork(name) });
      parts.add({ name: `link ${name}`, stop: () => proxy.stop(), deadlineMs: 5_000 });
      links.push(proxy);
      return proxy;
    };
    const viaProxy = (url: string, proxy: LinkProxy) => {
      const through = new URL(url);
      through.hostname = '127.0.0.1';
      through.port = String(proxy.port);
      return through.toString().replace(/\/$/, '');
    };
    const tcpUrl = (url: string) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) });
    const postgresVia = (proxy: LinkProxy) => `postgres://postgres:postgres@127.0.0.1:${proxy.port}/issuer`;
    const workersDatabase = await link('workers→postgresql', postgresTcp);
    const apisDatabase = await link('apis→postgresql', postgresTcp);
    const workersChains: Partial<Record<EvmChain, LinkProxy>> = {};
    for (const network of chains.networks) workersChains[network.chain] = await link(`workers→${network.chain}`, tcpUrl(network.rpcUrl));
    const workersSolana = await link('workers→solana', tcpUrl(solana.rpcUrl));

    // The durable Temporal service, its state in the same PostgreSQL.
    const temporalPort = await freePort();
    const temporalAddress = `127.0.0.1:${temporalPort}`;
    const launch = (name: string, role: ProductProcess['role'], entry: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp) => {
      const started = new RoleProcess(name, role, entry, args, env, ready);
      roles.push(started);
      return started;
    };
    await launch('temporal', 'temporal', 'temporal-server/main.ts', ['--port', String(temporalPort), '--database-url', databaseUrl], roleEnv(), /Durable Temporal listening/).started();
    const workersTemporal = await link('workers→temporal', { host: '127.0.0.1', port: temporalPort });
    const temporalConnection = await Connection.connect({ address: temporalAddress });
    parts.add({ name: 'Temporal client', stop: () => temporalConnection.close(), deadlineMs: 5_000 });
    const temporal = new Client({ connection: temporalConnection });
    step();

    const shared = {
      ...roleEnv(),
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      CHAIN_ISSUER_PRIVATE_KEY: anvilAccount(0).privateKey,
      ...Object.fromEntries(chains.networks.map((network) => [chainVariables(network.chain).rpcUrl, network.rpcUrl])),
      SOLANA_RPC_URL: solana.rpcUrl,
    };
    const apiUrls: string[] = [];
    for (const name of ['api-1', 'api-2']) {
      const [port, grpcPort, metricsPort] = (await freePorts(3)) as [number, number, number];
      launch(
        name,
        'api',
        'start/api-main.ts',
        [],
        {
          ...shared,
          DATABASE_URL: postgresVia(apisDatabase),
          PORT: String(port),
          GRPC_PORT: String(grpcPort),
          METRICS_PORT: String(metricsPort),
          ATTESTATION_EVM_PRIVATE_KEY: signerKeys.evmPrivateKey,
          ATTESTATION_SOLANA_SECRET_KEY: signerKeys.solanaSecretKey,
          RATE_LIMIT_PER_SECOND: '10000',
          RATE_LIMIT_BURST: '10000',
          API_KEY_CACHE_SECONDS: '0',
          CHECK_ANSWERS: 'fail',
          ...parameters.environment?.api,
        },
        /"msg":"api running"/,
      );
      apiUrls.push(`http://127.0.0.1:${port}`);
    }
    const feedMetrics = await freePort();
    launch('feed', 'feed', 'start/feed-main.ts', [], { ...shared, DATABASE_URL: databaseUrl, METRICS_PORT: String(feedMetrics), PRICE_TICK_MS: '500', ...parameters.environment?.feed }, /"msg":"feed running"/);
    await Promise.all(roles.filter((role) => role.role !== 'temporal').map((role) => role.started()));
    step();

    // The first admin key as a production database gets it; the other keys of the stack file beside it.
    const created = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/keys.ts'), 'create', '--scope', 'admin', '--name', 'campaign admin'], {
      cwd: ROOT,
      env: { ...roleEnv(), DATABASE_URL: databaseUrl },
    });
    const admin = /secret: (\S+)/.exec(created.stdout)![1]!;
    const write = (await createApiKey(db, { name: 'campaign write', scope: 'write' })).secret;
    const read = (await createApiKey(db, { name: 'campaign read', scope: 'read' })).secret;

    // The brokerage sandbox calls the first API back; the workers reach it through the broker proxy.
    const sandbox = await startSandbox({
      db,
      logger,
      host: '127.0.0.1',
      port: 0,
      issuerApiUrl: apiUrls[0]!,
      issuerId: DEVELOPMENT_ISSUER_ID,
      secrets,
      deployments,
      timing: { retryInitialMs: 200, retryMaxMs: 2_000, pollMs: 200 },
      trading: { clock: tradingClock() },
    });
    parts.add(sandbox);
    const brokerProxy = await startBrokerProxy({ target: sandbox.url, setMaxFillQty: (qty) => sandbox.broker.setMaxFillQty(qty) });
    parts.add({ name: 'broker proxy', stop: () => brokerProxy.stop(), deadlineMs: 5_000 });
    const broker = sandboxConnection(brokerProxy.url, secrets);

    const bundlePath = path.join(dataDir, 'workflow-bundle.js');
    writeFileSync(bundlePath, await productBundle());
    for (const name of ['worker-1', 'worker-2']) {
      const metricsPort = await freePort();
      launch(
        name,
        'worker',
        'start/worker-main.ts',
        [],
        {
          ...shared,
          DATABASE_URL: postgresVia(workersDatabase),
          TEMPORAL_ADDRESS: `127.0.0.1:${workersTemporal.port}`,
          ...Object.fromEntries(chains.networks.map((network) => [chainVariables(network.chain).rpcUrl, viaProxy(network.rpcUrl, workersChains[network.chain]!)])),
          SOLANA_RPC_URL: viaProxy(solana.rpcUrl, workersSolana),
          ATTESTATION_SOLANA_SECRET_KEY: signerKeys.solanaSecretKey,
          METRICS_PORT: String(metricsPort),
          WORKFLOW_BUNDLE_PATH: bundlePath,
          CHAIN_POLL_INTERVAL_MS: '200',
          CHAIN_SCAN_BLOCK_RANGE: '50',
          BROKER_URL: broker.url,
          BROKER_ACCOUNT_ID: broker.accountId,
          BROKER_KEY: broker.key,
          BROKER_SECRET: broker.secret,
          ATTESTATION_SETTLEMENT_GRACE_MS: String(CAMPAIGN_SETTLEMENT_GRACE_MS),
          ...parameters.environment?.worker,
        },
        /"msg":"worker running"/,
      );
    }
    await Promise.all(roles.filter((role) => role.role === 'worker').map((role) => role.started()));
    step();

    // The write key's account holds the development wallets (registered on chain by a worker), as npm start's does.
    const writeKey = (await findActiveApiKey(db, write))!;
    const account = { id: writeKey.accountId!, userId: writeKey.userId! };
    const wallets = await ensureDevWallets({ db, chains, deployments, workflows: { client: temporal, taskQueue: TASK_QUEUE }, account });
    await listSolanaDevWallets(db, { accountId: account.id, wallets: solanaSetup.wallets });
    await onboardDevelopmentClient(db, { accountId: account.id, wallets: wallets.map((wallet) => wallet.address) }, deployments);
    await sandbox.connectParticipant();

    const stack: StackFile = {
      api: `${apiUrls[0]}/v1`,
      keys: { admin, write, read, partner: sandbox.partnerApiKey },
      account,
      database: databaseUrl,
      temporal: { address: temporalAddress, namespace: 'default', kind: 'durable' },
      signers: signerPublicInfo(signers, Object.fromEntries(deployments.map((deployment) => [deployment.chain, deployment.tokenManager])), solanaAccounts),
      chains: { ...(await stackChains(db, chains, deployments)), [SOLANA_CHAIN]: solanaSetup.chain },
      wallets,
      solanaWallets: solanaSetup.wallets,
      broker: sandbox.stackEntry,
      issuer: { id: DEVELOPMENT_ISSUER_ID, partnerKey: sandbox.partnerApiKey },
    };
    writeStackFile(dataDir, stack);
    step();

    const faults: FaultHandles = {
      processes: roles,
      database: {
        async terminateConnections() {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend') AS terminated`,
          );
          return rows[0]!.n;
        },
        async restart(downMs) {
          await postgres.stop();
          await new Promise((resolve) => setTimeout(resolve, downMs));
          postgres = await startEmbeddedPostgres({ dataDir, port: postgresPort, onLog: (line) => logger.debug(line) });
        },
      },
      chains: chains.networks.map((network) => ({
        chain: network.chain,
        maxReorgDepth: () => reorgRoom(network.rpcUrl),
        async reorg(depth) {
          const room = await reorgRoom(network.rpcUrl);
          if (depth < 1 || depth > room) throw new Error(`a reorganisation of ${depth} blocks on ${network.chain} would reach its final block (room: ${room})`);
          await jsonRpc(network.rpcUrl, 'anvil_reorg', [depth, []]);
        },
      })),
      broker: { set: (fault) => brokerProxy.set(fault) },
      links: links.map((proxy) => ({ name: proxy.name, set: (fault) => proxy.set(fault) })),
    };
    return {
      target: { stack, apiUrls },
      faults,
      db,
      temporal,
      settlementGraceMs: Number(parameters.environment?.worker?.ATTESTATION_SETTLEMENT_GRACE_MS ?? CAMPAIGN_SETTLEMENT_GRACE_MS),
      taskQueue: TASK_QUEUE,
      brokerUrl: brokerProxy.url,
      output: () => roles.map((role) => `--- ${role.name}\n${role.output().slice(-3_000)}`).join('\n'),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
