/**
 * PostgreSQL killed under the production shape: the durable Temporal service (`npm run temporal:server`), an API, a
 * worker and the feed as separate OS processes on a PostgreSQL of the test's own, with a local chain. Its postmaster
 * gets SIGKILL while attestations are being stored through the API (each request holding a connection in a
 * transaction), the worker and the feed doing their own work. Every process stays up; meanwhile the API answers 503
 * with Retry-After and /ready says PostgreSQL is down; once the server is back on the same data, /ready is 200,
 * attestations are made again, none was answered a 500, and every attestation made has its workflow, which the
 * Temporal service stored in the same PostgreSQL. Every process is stopped by its pid whatever happens.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { anvilAccount } from '../../chains/anvil';
import { freePort, freePorts } from '../../config/free-port';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { createPool, type Database } from '../../db/pool';
import { createApiKey } from '../../db/queries/api-keys';
import { startLocalChain, type LocalChain } from '../../harness/local-chain';
import { loadSigners } from '../../signing';
import { DEV_KEY_FILE } from '../../signing/keys';
import { prepareDatabase } from '../../start/database';
import { alive, attestationLoad, call, expectWorkflowsOf, killPostmaster, openLimits, ownDataDir } from '../support/database-outage';
import { eventually } from '../support/eventually';
import { roleEnv, startProcess, type TestProcess } from '../../harness/processes';

jest.setTimeout(600_000);

const data = ownDataDir('issuer-production-killed-');
const dataDir = data.path;

let postgres: EmbeddedDatabase | undefined;
let postgresPort: number;
let db: Database | undefined;
let chain: LocalChain | undefined;
const started: TestProcess[] = [];
let api: string;
let temporalAddress: string;
const keys = { admin: '', write: '' };

function launch(name: string, entry: string, args: string[], env: NodeJS.ProcessEnv): TestProcess {
  const child = startProcess(name, entry, args, env);
  started.push(child);
  return child;
}

/** The processes' last output, to explain a failed expectation. */
function output(): string {
  return started.map((child) => `--- ${child.name}\n${child.output().slice(-2_000)}`).join('\n');
}

beforeAll(async () => {
  postgresPort = await freePort();
  postgres = await startEmbeddedPostgres({ dataDir, port: postgresPort });
  db = createPool(postgres.url, 4);
  await prepareDatabase(db, { now: Date.now() });
  const scratch = path.join(dataDir, 'signers');
  const signers = loadSigners({ dataDir: scratch });
  const signerKeys = JSON.parse(readFileSync(path.join(scratch, DEV_KEY_FILE), 'utf8')) as { evmPrivateKey: string; solanaSecretKey: string };
  chain = await startLocalChain({ db, attestationSigner: signers.evm.address });

  const temporalPort = await freePort();
  temporalAddress = `127.0.0.1:${temporalPort}`;
  await launch('temporal', 'temporal-server/main.ts', ['--port', String(temporalPort), '--database-url', postgres.url], roleEnv()).waitFor(/Durable Temporal listening/);
  const shared = {
    ...roleEnv(),
    DATABASE_URL: postgres.url,
    TEMPORAL_ADDRESS: temporalAddress,
    RPC_URL_ETHEREUM: chain.context.network.rpcUrl,
    CHAIN_ISSUER_PRIVATE_KEY: anvilAccount(0).privateKey,
  };
  const [port, grpcPort, apiMetrics, workerMetrics, feedMetrics] = (await freePorts(5)) as [number, number, number, number, number];
  api = `http://127.0.0.1:${port}/v1`;
  const roles = [
    launch('api', 'start/api-main.ts', [], {
      ...shared,
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(apiMetrics),
      ATTESTATION_EVM_PRIVATE_KEY: signerKeys.evmPrivateKey,
      ATTESTATION_SOLANA_SECRET_KEY: signerKeys.solanaSecretKey,
      // The callers are not to be refused for their pace, whatever the machine's.
      RATE_LIMIT_PER_SECOND: '10000',
      RATE_LIMIT_BURST: '10000',
    }).waitFor(/"msg":"api running"/, 120_000),
    launch('worker', 'start/worker-main.ts', [], { ...shared, METRICS_PORT: String(workerMetrics), CHAIN_POLL_INTERVAL_MS: '200' }).waitFor(/"msg":"worker running"/, 180_000),
    launch('feed', 'start/feed-main.ts', [], { ...shared, METRICS_PORT: String(feedMetrics), PRICE_TICK_MS: '500' }).waitFor(/"msg":"feed running"/, 120_000),
  ];
  await Promise.all(roles);
  keys.admin = (await createApiKey(db, { name: 'database-killed admin', scope: 'admin' })).secret;
  keys.write = (await createApiKey(db, { name: 'database-killed write', scope: 'write' })).secret;
}, 300_000);

afterAll(async () => {
  // The roles first, the Temporal service after them, every one by its pid.
  await Promise.all(started.filter((child) => child.name !== 'temporal').map((child) => child.stop()));
  await Promise.all(started.map((child) => child.stop()));
  await chain?.stop();
  await db?.end();
  await postgres?.stop();
  data.remove();
}, 120_000);

test('PostgreSQL killed under the roles storing attestations: every process stays up, the API answers 503 with Retry-After, and all recover when the server is back', async () => {
  await openLimits(api, keys.admin);
  const ready = () => call(`${api.replace(/\/v1$/, '')}/ready`, keys.admin);

  const load = attestationLoad(api, keys.write, { lanes: 4, chainId: chain!.chain });
  try {
    await eventually(async () => expect(load.count(200)).toBeGreaterThanOrEqual(20), 60_000);
    const before = load.answers.length;
    await Promise.race([
      (async () => {
        await killPostmaster(postgres!.pid);
        await eventually(async () => expect(load.answers.slice(before).filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(8), 60_000);
      })(),
      ...started.map((child) =>
        child.exited.then((code) => {
          throw new Error(`${child.name} exited (${code}) once PostgreSQL was killed; the processes' output ends:\n${output()}`);
        }),
      ),
    ]);
    expect([started.filter((child) => !alive(child.pid)).map((child) => child.name), output()]).toEqual([[], expect.any(String)]);
    const tickers = await call(`${api}/tickers`, keys.admin);
    expect([tickers.status, tickers.retryAfter, tickers.body?.code]).toEqual([503, '5', 'SERVICE_UNAVAILABLE']);
    const down = await ready();
    expect([down.status, down.body.checks.postgres]).toEqual([503, { status: 'down', error: 'unreachable' }]);

    // The server back on the same data, as its supervisor would bring it.
    postgres = await startEmbeddedPostgres({ dataDir, port: postgresPort });
    await eventually(async () => expect((await ready()).status).toBe(200), 120_000);
    const after = load.count(200);
    await eventually(async () => expect(load.count(200)).toBeGreaterThanOrEqual(after + 20), 60_000);
  } finally {
    await load.stop();
  }

  expect([started.filter((child) => !alive(child.pid)).map((child) => child.name), output()]).toEqual([[], expect.any(String)]);
  expect(load.undocumented()).toEqual([]);
  await expectWorkflowsOf(load.made, { address: temporalAddress });
});
