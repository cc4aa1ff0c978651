/**
 * `npm start` stops everything it starts. The real command, on free ports and a data directory of its own, is started
 * on the fresh directory and then restarted, and each run is ended with SIGTERM to its process group — once while it is
 * still starting. After each: no process of the run is left (none in its process group, neither its PostgreSQL nor its
 * chains by pid, none naming its data directory on its command line), its last log line is `stopped`, it logged no
 * error, and a run that became ready logged no failed activity (as the reserves did when the worker started before
 * the brokerage sandbox listened). The Solana accounts npm start makes on its ledger are made once: each restart
 * writes the same ones to stack.json and sends no transaction for them.
 * Whatever happens, everything this test started is killed by process group and pid at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePorts } from '../../config/free-port';

const ROOT = path.join(__dirname, '..', '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-shutdown-'));
// Searchable by all, so that PostgreSQL (run as the `postgres` user under root) keeps its cluster inside it.
chmodSync(dataDir, 0o755);

interface ProcessEntry {
  pid: number;
  pgid: number;
  cmdline: string;
}

/** Every process of the machine with its process group and command line, from /proc. */
function processes(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      entries.push({ pid: Number(name), pgid: Number(fields[2]), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return entries;
}

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return state.slice(state.lastIndexOf(')') + 2, state.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** What of the run is still there: its process group's members and anything naming its data directory. */
function leftovers(pgid: number, pids: number[]): string[] {
  const named = processes().filter((entry) => entry.pgid === pgid || entry.cmdline.includes(dataDir));
  return [...named.map((entry) => `${entry.pid} ${entry.cmdline}`), ...pids.filter(alive).map((pid) => `${pid} (by pid)`)];
}

/** npm exits at once on the signal; the product then has its own shutdown deadline (60 s, start/main.ts) and a margin. */
const STOP_WITHIN_MS = 70_000;

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Run {
  child: ChildProcess;
  pgid: number;
  output(): string;
  exited: Promise<void>;
  /** Every writer of its output gone and all it wrote read (its processes may exit before their last lines are read). */
  closed: Promise<void>;
}

const runs: Run[] = [];
/** Every PostgreSQL and chain pid a run had, for the final sweep. */
const childPids = new Set<number>();
let env: NodeJS.ProcessEnv;

function start(): Run {
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const run = { child, pgid: child.pid!, output: () => text, exited, closed };
  runs.push(run);
  return run;
}

/** The pids of the run's PostgreSQL (its lock file) and chains (their pid files) while they run. */
function serverPids(): number[] {
  const pids: number[] = [];
  const lock = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(lock)) pids.push(Number(readFileSync(lock, 'utf8').split('\n')[0]));
  const chains = path.join(dataDir, 'chains');
  if (existsSync(chains)) {
    for (const file of readdirSync(chains).filter((name) => name.endsWith('.pid'))) pids.push(Number(readFileSync(path.join(chains, file), 'utf8').trim()));
  }
  for (const pid of pids) childPids.add(pid);
  return pids;
}

/** Sends SIGTERM to the run's process group and checks that nothing of it is left. */
interface LogLine {
  msg?: string;
  level?: number;
  /** What the Temporal SDK's logger adds: the activity's type and its error, among others. */
  temporal?: { activityType?: string; error?: { name?: string; message?: string; shortMessage?: string } };
}

async function terminate(run: Run, pids: number[]): Promise<LogLine[]> {
  process.kill(-run.pgid, 'SIGTERM');
  await Promise.race([run.exited, new Promise((_, reject) => setTimeout(() => reject(new Error(`npm start did not exit: ${run.output().slice(-2_000)}`)), 90_000))]);
  await waitUntil(`the run's processes to go (${leftovers(run.pgid, pids).join('; ')}); its output ends: ${run.output().slice(-3_000)}`, () => leftovers(run.pgid, pids).length === 0, STOP_WITHIN_MS);
  await run.closed;
  const logLines = run
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
  // With the output's end beside it, so that a failure shows how the run ended.
  expect([logLines.at(-1), run.output().slice(-3_000)]).toMatchObject([{ msg: 'stopped', level: 30 }, expect.any(String)]);
  expect(logLines.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
  return logLines;
}

beforeAll(async () => {
  const ports = { PORT: 0, GRPC_PORT: 0, EMBEDDED_POSTGRES_PORT: 0, ANVIL_PORT_ETHEREUM: 0, ANVIL_PORT_BSC: 0, SOLANA_RPC_PORT: 0, BROKER_SANDBOX_PORT: 0, METRICS_PORT: 0, TEMPORAL_PORT: 0 };
  const free = await freePorts(Object.keys(ports).length);
  for (const [index, name] of (Object.keys(ports) as (keyof typeof ports)[]).entries()) ports[name] = free[index]!;
  env = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])), DATA_DIR: dataDir, LOG_FORMAT: 'json', LOG_LEVEL: 'info' };
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RPC_URL_ETHEREUM', 'RPC_URL_BSC', 'BROKER_URL', 'BROKER_ACCOUNT_ID', 'BROKER_KEY', 'BROKER_SECRET', 'NODE_OPTIONS']) delete env[name];
});

afterAll(async () => {
  for (const run of runs) {
    try {
      process.kill(-run.pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const entry of processes().filter((candidate) => candidate.cmdline.includes(dataDir))) childPids.add(entry.pid);
  for (const pid of childPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await waitUntil('every process of the test to go', () => [...childPids].every((pid) => !alive(pid)), 10_000).catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

interface SolanaStack {
  api: string;
  keys: { read: string; write: string };
  chains: { 'solana-900': { mints: Record<string, string> } };
  solanaWallets: { address: string }[];
}

/**
 * What npm start wires for Solana: the API serves the mints as the assets' solana-900 addresses and issues a Solana
 * attestation for a development wallet over a nonce of the pool it registered (the answer carries a transaction).
 */
async function expectSolanaAttestation(stack: SolanaStack): Promise<void> {
  const addresses = (await (await fetch(`${stack.api}/assets/SPYon/addresses`, { headers: { 'x-api-key': stack.keys.read } })).json()) as { addresses: unknown[] };
  expect(addresses.addresses).toContainEqual({ networkChainId: 'solana-900', address: stack.chains['solana-900'].mints['SPYon'], decimals: 9 });
  const response = await fetch(`${stack.api}/attestations`, {
    method: 'POST',
    headers: { 'x-api-key': stack.keys.write, 'content-type': 'application/json' },
    body: JSON.stringify({ symbol: 'SPYon', side: 'buy', tokenAmount: '1', chainId: 'solana-900', userAddress: stack.solanaWallets[0]!.address }),
  });
  const attestation = (await response.json()) as { assetAddress?: string; additionalData?: string };
  expect([response.status, attestation.assetAddress]).toEqual([200, stack.chains['solana-900'].mints['SPYon']]);
  expect(Buffer.from(attestation.additionalData!, 'base64').length).toBeGreaterThan(200);
}

const ready = (run: Run) => run.output().includes('Tokenized-stock issuer is ready');
/** The Solana part of stack.json as the fresh run wrote it. */
let solanaAccounts: unknown;

test.each([
  ['on a fresh data directory, once ready', 'ready', true],
  ['restarted, once ready', 'ready', false],
  ['restarted again, once ready', 'ready', false],
  ['restarted, while still starting (its database and chains up)', 'starting', false],
  ['restarted after that, once ready', 'ready', false],
] as const)('npm start %s: SIGTERM to its process group leaves nothing of it running', async (_name, when, fresh) => {
  const run = start();
  if (when === 'ready') {
    await waitUntil('the ready banner', () => ready(run) || run.child.exitCode !== null, 240_000);
    expect([ready(run), run.output().slice(-2_000)]).toEqual([true, expect.any(String)]);
    // The Solana set-up is made once: a restart finds the same accounts (from the ledger's state) and sends nothing.
    const stack = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as { chains: Record<string, { noncePool?: string[] }>; solanaWallets: unknown[] };
    const solana = { chain: stack.chains['solana-900'], wallets: stack.solanaWallets };
    const setUp = run.output().split('\n').find((line) => line.includes('"msg":"Solana accounts ready"'));
    expect(solana.chain?.noncePool).toHaveLength(8);
    if (fresh) {
      solanaAccounts = solana;
      await expectSolanaAttestation(stack as unknown as SolanaStack);
    } else expect([solana, (JSON.parse(setUp!) as { transactions: number }).transactions]).toEqual([solanaAccounts, 0]);
  } else {
    await waitUntil('the chains to run', () => run.output().includes('local anvil chains running') || run.child.exitCode !== null, 240_000);
    expect(ready(run)).toBe(false);
  }
  const pids = serverPids();
  expect(pids.length).toBe(3);
  expect(pids.every(alive)).toBe(true);
  const logLines = await terminate(run, pids);
  // The parts start in the order they need one another (the worker once the sandbox it calls listens) and stop in
  // reverse: no activity of a fresh run that started and stopped cleanly fails. Not judged on a restart: the local
  // chains come back from their state file without the state of the blocks before it (anvil answers BlockOutOfRange),
  // so the reserves read at the watcher's final block fail, and are retried, until that block passes the restart's.
  const failedActivities = logLines.filter((line) => line.msg === 'Activity failed').map(({ temporal }) => `${temporal?.activityType}: ${temporal?.error?.name} ${temporal?.error?.shortMessage ?? temporal?.error?.message ?? ''}`);
  if (fresh && when === 'ready') expect(failedActivities).toEqual([]);
}, 300_000);
