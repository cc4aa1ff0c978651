/**
 * PostgreSQL killed under a running `npm start` (as an out-of-memory kill or a failover would do): its postmaster gets
 * SIGKILL while attestations are being stored — every request holds a connection in a transaction — beside what the
 * product does by itself (the price feed storing batches, the chain watchers scanning, the brokerage sandbox's passes,
 * the embedded Temporal service storing its runs). The process stays up, its chains too; meanwhile every route answers
 * 503 SERVICE_UNAVAILABLE with Retry-After and /ready says PostgreSQL is down; once the server is back on the same
 * data, /ready is 200, attestations are made again, and every attestation made before, during and after has its
 * workflow. The product is run as `npm start` runs it, on free ports and a data directory of its own; everything this
 * test started is stopped by its pid or process group whatever happens.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePorts } from '../../config/free-port';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';
import { removeWithThisProcess } from '../../harness/reaper';
import { attestationWorkflowId } from '../../temporal/workflow-ids';
import { eventually } from '../support/eventually';
import { startProcess, type TestProcess } from '../support/processes';

jest.setTimeout(600_000);

const SESSIONS = ['premarket', 'regular', 'postmarket', 'overnight', 'offhours'] as const;
const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-database-killed-'));
// Searchable by all, so that PostgreSQL (run as the `postgres` user under root) keeps its cluster inside it.
chmodSync(dataDir, 0o755);
const forgetDataDir = removeWithThisProcess(dataDir);

let run: TestProcess | undefined;
let restarted: EmbeddedDatabase | undefined;
let postgresPort: number;

interface Stack {
  api: string;
  keys: { read: string; write: string; admin: string };
  temporal: { address: string; namespace: string };
}

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return state.slice(state.lastIndexOf(')') + 2, state.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The members of process group `pgid` still running, from /proc. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid && alive(Number(name))) members.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** The pids of the run's chains (their pid files). */
function chainPids(): number[] {
  const chains = path.join(dataDir, 'chains');
  return readdirSync(chains)
    .filter((name) => name.endsWith('.pid'))
    .map((file) => Number(readFileSync(path.join(chains, file), 'utf8').trim()));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of many routes, read field by field
type Answer = { status: number; retryAfter: string | null; body: any };

async function call(url: string, key: string, body?: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: body ? 'POST' : 'GET',
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: text ? JSON.parse(text) : undefined };
}

/** Attestations asked for in a loop by `lanes` callers at once until stopped: every answer, and the ids of those made. */
function attestationLoad(stack: Stack, lanes: number) {
  const answers: { status: number; retryAfter: string | null; code?: string }[] = [];
  const made: string[] = [];
  let stopped = false;
  const lane = async () => {
    while (!stopped) {
      // No answer at all (status 0): the process dropped the connection or is gone.
      const answer = await call(`${stack.api}/attestations`, stack.keys.write, { symbol: 'SPYon', side: 'buy', tokenAmount: '0.01', duration: 'short', chainId: 'ethereum-1' }).catch(
        (error: unknown): Answer => ({ status: 0, retryAfter: null, body: { code: String((error as { cause?: { code?: unknown } }).cause?.code ?? error) } }),
      );
      answers.push({ status: answer.status, retryAfter: answer.retryAfter, code: answer.body?.code });
      if (answer.status === 200) made.push(answer.body.attestationId);
      // A breath between calls, a longer one after a refusal, so that the callers do not take the machine's cores.
      await new Promise((resolve) => setTimeout(resolve, answer.status === 200 ? 20 : 100));
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, lane));
  return {
    answers,
    made,
    count: (status: number) => answers.filter((answer) => answer.status === status).length,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

afterAll(async () => {
  await run?.stop(70_000);
  await restarted?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  forgetDataDir();
}, 120_000);

test('PostgreSQL killed under npm start storing attestations: the process stays up, answers 503 with Retry-After, and recovers when the server is back', async () => {
  const ports = { PORT: 0, GRPC_PORT: 0, EMBEDDED_POSTGRES_PORT: 0, ANVIL_PORT_ETHEREUM: 0, ANVIL_PORT_BSC: 0, BROKER_SANDBOX_PORT: 0, METRICS_PORT: 0, TEMPORAL_PORT: 0 };
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
  // Room for every attestation the test asks for, whatever the session.
  for (const session of SESSIONS) {
    const limit = await fetch(`${stack.api}/limits/session/SPYon/${session}`, {
      method: 'PUT',
      headers: { 'x-api-key': stack.keys.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ tradable: true, maxAttestationCount: '100000', maxActiveNotionalValue: '1000000000' }),
    });
    expect(limit.status).toBe(200);
  }

  const load = attestationLoad(stack, 4);
  try {
    await eventually(async () => expect(load.count(200)).toBeGreaterThanOrEqual(20), 60_000);
    const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    // Its server processes notice and end each session ("terminating connection due to unexpected postmaster exit").
    const before = load.answers.length;
    await Promise.race([
      (async () => {
        await eventually(async () => expect(groupMembers(postmaster)).toEqual([]), 60_000);
        await eventually(async () => expect(load.answers.slice(before).filter((answer) => answer.status === 503).length).toBeGreaterThanOrEqual(8), 60_000);
      })(),
      run.exited.then((code) => {
        throw new Error(`npm start exited (${code}) once PostgreSQL was killed; its output ends:\n${run!.output().slice(-3_000)}`);
      }),
    ]);

    expect([alive(run.pid), run.output().slice(-3_000)]).toEqual([true, expect.any(String)]);
    expect(chains.every(alive)).toBe(true);
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
  // Every answer was an attestation or the documented 503 — the database gone, or (just after it is back) the latest
  // price older than quotes accept until the feed has stored a tick — none a 500, none a connection the process dropped.
  const outcomes = new Set(load.answers.map((answer) => `${answer.status} ${answer.code ?? ''}`.trim()));
  expect([...outcomes].filter((outcome) => !['200', '503 SERVICE_UNAVAILABLE', '503 PRICE_UNAVAILABLE'].includes(outcome))).toEqual([]);
  expect(load.answers.filter((answer) => answer.code === 'SERVICE_UNAVAILABLE' && answer.retryAfter !== '5')).toEqual([]);

  // Nothing made is lost: every attestation answered 200 has its workflow, on the embedded Temporal service kept in PostgreSQL.
  const connection = await Connection.connect({ address: stack.temporal.address });
  try {
    const temporal = new Client({ connection, namespace: stack.temporal.namespace });
    await eventually(async () => {
      const missing: string[] = [];
      for (const id of load.made) {
        await temporal.workflow
          .getHandle(attestationWorkflowId(id))
          .describe()
          .catch(() => missing.push(id));
      }
      expect(missing).toEqual([]);
    }, 120_000);
  } finally {
    await connection.close();
  }
});
