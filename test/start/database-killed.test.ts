/**
 * PostgreSQL killed under a running `npm start` (as an out-of-memory kill or a failover would do): its postmaster gets
 * SIGKILL while attestations are being stored — every request holds a connection in a transaction — beside what the
 * product does by itself (the price feed storing batches, the chain watchers scanning, the brokerage sandbox's passes,
 * the embedded Temporal service storing its runs). The process stays up, its chains too, and logs that its PostgreSQL
 * exited and that nothing starts it again; meanwhile every route answers 503 SERVICE_UNAVAILABLE with Retry-After and /ready says PostgreSQL is down; once the server is back on the same
 * data, /ready is 200, attestations are made again, and every attestation made before, during and after has its
 * workflow. The product is run as `npm start` runs it, on free ports and a data directory of its own; everything this
 * test started is stopped by its pid or process group whatever happens.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { freePorts } from '../../config/free-port';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { alive, attestationLoad, call, expectWorkflowsOf, killPostmaster, openLimits, ownDataDir } from '../support/database-outage';
import { eventually } from '../support/eventually';
import { startProcess, type TestProcess } from '../../harness/processes';

jest.setTimeout(600_000);

const data = ownDataDir('issuer-database-killed-');
const dataDir = data.path;

let run: TestProcess | undefined;
let restarted: EmbeddedDatabase | undefined;
let postgresPort: number;

interface Stack {
  api: string;
  keys: { read: string; write: string; admin: string };
  temporal: { address: string; namespace: string };
}

/** The pids of the run's chains (their pid files). */
function chainPids(): number[] {
  const chains = path.join(dataDir, 'chains');
  return readdirSync(chains)
    .filter((name) => name.endsWith('.pid'))
    .map((file) => Number(readFileSync(path.join(chains, file), 'utf8').trim()));
}

afterAll(async () => {
  await run?.stop(70_000);
  await restarted?.stop();
  data.remove();
}, 120_000);

test('PostgreSQL killed under npm start storing attestations: the process stays up, answers 503 with Retry-After, and recovers when the server is back', async () => {
  const ports = { PORT: 0, GRPC_PORT: 0, EMBEDDED_POSTGRES_PORT: 0, ANVIL_PORT_ETHEREUM: 0, ANVIL_PORT_BSC: 0, SOLANA_RPC_PORT: 0, BROKER_SANDBOX_PORT: 0, METRICS_PORT: 0, TEMPORAL_PORT: 0 };
  const free = await freePorts(Object.keys(ports).length);
  for (const [index, name] of (Object.keys(ports) as (keyof typeof ports)[]).entries()) ports[name] = free[index]!;
  postgresPort = ports.EMBEDDED_POSTGRES_PORT;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])),
    DATA_DIR: dataDir,
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    // The four callers are not to be refused for their pace, whatever the machine's.
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_BURST: '10000',
  };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RPC_URL_ETHEREUM', 'RPC_URL_BSC', 'BROKER_URL', 'BROKER_ACCOUNT_ID', 'BROKER_KEY', 'BROKER_SECRET', 'NODE_OPTIONS']) delete env[name];

  run = startProcess('npm start', 'start/main.ts', [], env);
  await run.waitFor(/Tokenized-stock issuer is ready/, 300_000);
  const stack = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as Stack;
  const chains = chainPids();
  expect(chains.length).toBe(2);
  await openLimits(stack.api, stack.keys.admin);

  const load = attestationLoad(stack.api, stack.keys.write, { lanes: 4, chainId: 'ethereum-1' });
  try {
    await eventually(async () => expect(load.count(200)).toBeGreaterThanOrEqual(20), 60_000);
    const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const before = load.answers.length;
    // Listened for from before the kill: the request lines that follow soon push it out of the output kept.
    const exitLogged = run.waitFor(/embedded PostgreSQL exited unexpectedly/, 60_000);
    exitLogged.catch(() => undefined);
    await Promise.race([
      (async () => {
        await killPostmaster(postmaster);
        await eventually(async () => expect(load.answers.slice(before).filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(8), 60_000);
      })(),
      run.exited.then((code) => {
        throw new Error(`npm start exited (${code}) once PostgreSQL was killed; its output ends:\n${run!.output().slice(-3_000)}`);
      }),
    ]);

    expect([alive(run.pid), run.output().slice(-3_000)]).toEqual([true, expect.any(String)]);
    expect(chains.every(alive)).toBe(true);
    // The operator is told why everything answers 503, and that nothing will start the server again.
    expect(JSON.parse(await exitLogged)).toMatchObject({ level: 50, signal: 'SIGKILL', log: `${dataDir}/postgres.log` });
    for (const [route, key] of [
      ['/tickers', stack.keys.read],
      ['/assets/SPYon/market', stack.keys.read],
      ['/attestations?state=outstanding', stack.keys.write],
    ] as const) {
      const answer = await call(`${stack.api}${route}`, key);
      expect([route, answer.status, answer.retryAfter, answer.body?.code]).toEqual([route, 503, '5', 'SERVICE_UNAVAILABLE']);
    }
    const ready = await call(`${stack.api.replace(/\/v1$/, '')}/ready`, stack.keys.read);
    expect([ready.status, ready.body.checks.postgres]).toEqual([503, { status: 'down', error: 'unreachable' }]);

    // The server back on the same data, as its supervisor would bring it.
    restarted = await startEmbeddedPostgres({ dataDir, port: postgresPort });
    await eventually(async () => expect((await call(`${stack.api.replace(/\/v1$/, '')}/ready`, stack.keys.read)).status).toBe(200), 120_000);
    const after = load.count(200);
    await eventually(async () => expect(load.count(200)).toBeGreaterThanOrEqual(after + 20), 60_000);
  } finally {
    await load.stop();
  }

  expect([alive(run.pid), run.output().slice(-3_000)]).toEqual([true, expect.any(String)]);
  expect(chains.every(alive)).toBe(true);
  // Every answer was an attestation or a documented 503; none a 500, none a connection the process dropped.
  expect(load.undocumented()).toEqual([]);
  // Nothing made is lost: every attestation answered 200 has its workflow, on the embedded Temporal service kept in PostgreSQL.
  await expectWorkflowsOf(load.made, stack.temporal);
});
