/**
 * Every example of README.md runs, in order, against a stack of its own: the product as `npm start` runs it
 * (start/main.ts, on free ports and a fresh data directory), so that the document and the product cannot drift apart.
 * It runs on a chosen instant (harness/instants.ts): the stack's processes and the examples' own (Node's clock, moved
 * by harness/shifted-clock.mjs) are on a Saturday, an exchange holiday or the minute before an early close — one test
 * file each —, since what a reader runs must work whatever the session, and a closed market is where an example
 * waiting for a price that never comes shows.
 *
 * How the README is read (its "Set-up for the examples" says the same to its readers):
 * - ```sh (or ```bash) blocks run in one bash, in document order, so that the variables of one block (the set-up's
 *   first) reach the next; ```ts blocks are saved as a file in the checkout and run with tsx, where they fall.
 * - A block whose info string carries `no-test` after the language (```sh no-test) is not run: it installs, or starts
 *   what this test already runs. Such blocks are listed in NOT_RUN below; the test fails when the README's differ, so
 *   that nothing stops running unnoticed.
 * - A command is a line with its `\` continuations (and the body of a heredoc it opens). It must exit 0 (under
 *   `pipefail`), and every HTTP status its curl calls receive must be a 2xx, or one of the statuses its trailing
 *   comment names (`# 202, or 200 if already the account's`).
 * - `curl -N` (a live stream, which runs until Ctrl-C) is ended after 3 s; that counts as success once it got its status.
 *
 * The stack logs in the pretty format a terminal gets, and its last line after Ctrl-C (SIGINT to its process group)
 * must be `stopped` (test/start/shutdown.test.ts checks the JSON format). Whatever happens, everything this test
 * started is killed by process group and pid, and its data directory removed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePorts } from '../../config/free-port';
import { marketStatus } from '../../domain/market-status';
import { nextInstant, type SessionCase } from '../../harness/instants';

const ROOT = path.join(__dirname, '..', '..');

/** The blocks the README marks `no-test`, by their first line. */
const NOT_RUN = [
  'npm install && npm start', // the test runs the stack itself
  'npm install && npm test', // the test is part of it
  'export DATA_DIR=.data-thanksgiving SHIFTED_CLOCK_START=2027-11-25T17:00:00Z NODE_OPTIONS=--import=./harness/shifted-clock.mjs', // the test moves the clock itself
  'npm run campaign -- --seed 7 --minutes 5          # one seed', // runs the product many times over; test/campaign/run.test.ts runs a seed
];

/** How long the stack may take to be ready (a fresh data directory: the backfill), and the examples to run. */
const READY_WITHIN_MS = 240_000;
const EXAMPLES_WITHIN_MS = 300_000;
const STOP_WITHIN_MS = 70_000;

interface ReadmeBlock {
  language: 'sh' | 'ts';
  /** The words after the language in the fence's info string (`no-test`). */
  flags: string[];
  /** The line of the README the block starts on (1-based, the fence). */
  line: number;
  body: string;
}

/** The code blocks of a Markdown document (fences of three backticks, indented or not), in order. */
function readmeBlocks(markdown: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const [, indent, language, rest] = open;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && lines[end]!.trim() !== '```') body.push(lines[end++]!.slice(indent!.length));
    const kind = language === 'sh' || language === 'bash' ? 'sh' : language === 'ts' ? 'ts' : undefined;
    if (kind) blocks.push({ language: kind, flags: rest!.split(/\s+/).filter(Boolean), line: index + 1, body: body.join('\n') });
    index = end;
  }
  return blocks;
}

interface ShellCommand {
  text: string;
  /** The README line it starts on. */
  line: number;
  /** Statuses its trailing comment names; empty: any 2xx. */
  statuses: number[];
}

/** A shell block's commands: each line with its continuations and the heredoc it opens. */
function shellCommands(block: ReadmeBlock): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const lines = block.body.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index]!.trim() === '' || lines[index]!.trim().startsWith('#')) continue;
    const start = index;
    const parts = [lines[index]!];
    while (parts.at(-1)!.endsWith('\\') && index + 1 < lines.length) parts.push(lines[++index]!);
    const heredoc = /<<-?\s*'?(\w+)'?/.exec(parts.join('\n'));
    if (heredoc) {
      while (index + 1 < lines.length && lines[index]!.trim() !== heredoc[1]) parts.push(lines[++index]!);
    }
    const comments = parts.map((part) => /\s#\s(.*)$/.exec(part)?.[1] ?? '').join(' ');
    const statuses = [...comments.matchAll(/(?<![\d.])[1-5]\d\d(?![\d.])/g)].map((match) => Number(match[0]));
    commands.push({ text: parts.join('\n'), line: block.line + 1 + start, statuses });
  }
  return commands;
}

/** Sourced first: curl records each status it receives, and each command is checked as the header says. */
const PRELUDE = readFileSync(path.join(__dirname, 'prelude.sh'), 'utf8');

function script(blocks: ReadmeBlock[]): string {
  const out = [PRELUDE];
  for (const block of blocks) {
    if (block.language === 'ts') {
      out.push(`__readme_line=${block.line}; echo "${block.line}" > "$__readme_progress"`);
      out.push(`__readme_ts=$(mktemp --tmpdir="$PWD" --suffix=.mts .readme-example-XXXXXX)`);
      out.push(`cat > "$__readme_ts" <<'__README_TS_END'\n${block.body}\n__README_TS_END`);
      out.push(`node --import tsx "$__readme_ts"; __readme_code=$?; rm -f "$__readme_ts"; __readme_check $__readme_code ''`);
      continue;
    }
    for (const command of shellCommands(block)) {
      out.push(`__readme_line=${command.line}; echo "${command.line}" > "$__readme_progress"`);
      out.push(command.text);
      out.push(`__readme_check $? '${command.statuses.join(' ')}'`);
    }
  }
  out.push('echo "README examples: all ran"');
  return out.join('\n');
}

interface Run {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  started.push(child);
  return { child, output: () => text, exited };
}

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const withTimeout = <T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(what())), ms).unref())]);

const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const SHIFTED_CLOCK = path.join(ROOT, 'harness', 'shifted-clock.mjs');
const started: ChildProcess[] = [];

/**
 * The README's tests with the stack and the examples on the next instant of `kind`: the blocks kept from the run are
 * the listed ones, and every other example runs and answers what the README says.
 */
export function describeReadmeExamplesAt(kind: SessionCase): void {
  const instant = nextInstant(kind);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'issuer-readme-'));
  // Searchable by all, so that PostgreSQL (run as the `postgres` user under root) keeps its cluster inside it.
  chmodSync(dataDir, 0o755);
  const work = mkdtempSync(path.join(tmpdir(), 'issuer-readme-run-'));
  const serverPids = new Set<number>();

  /** The pids of the stack's PostgreSQL (its lock file) and chains (their pid files) while they run. */
  function rememberServerPids(): void {
    const lock = path.join(dataDir, 'postgres', 'postmaster.pid');
    if (existsSync(lock)) serverPids.add(Number(readFileSync(lock, 'utf8').split('\n')[0]));
    const chains = path.join(dataDir, 'chains');
    if (existsSync(chains)) {
      for (const file of readdirSync(chains).filter((name) => name.endsWith('.pid'))) serverPids.add(Number(readFileSync(path.join(chains, file), 'utf8').trim()));
    }
  }

  afterAll(() => {
    for (const child of started) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const pid of serverPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    // The PostgreSQL under root runs as `postgres` and may need a moment to release its files.
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    rmSync(work, { recursive: true, force: true });
  });

  test('the blocks the README keeps from the tests are the listed ones, and the rest are many', () => {
    const blocks = readmeBlocks(README);
    expect(blocks.filter((block) => block.flags.includes('no-test')).map((block) => block.body.split('\n')[0])).toEqual(NOT_RUN);
    const commands = blocks.filter((block) => block.language === 'sh' && !block.flags.includes('no-test')).flatMap(shellCommands);
    expect(commands.length).toBeGreaterThan(50);
  });

  test(`every example of the README runs against npm start at ${instant.description} and answers what the README says; Ctrl-C then stops it`, async () => {
    const ports = { PORT: 0, GRPC_PORT: 0, EMBEDDED_POSTGRES_PORT: 0, ANVIL_PORT_ETHEREUM: 0, ANVIL_PORT_BSC: 0, SOLANA_RPC_PORT: 0, BROKER_SANDBOX_PORT: 0, METRICS_PORT: 0, TEMPORAL_PORT: 0 };
    const free = await freePorts(Object.keys(ports).length);
    for (const [index, name] of (Object.keys(ports) as (keyof typeof ports)[]).entries()) ports[name] = free[index]!;
    const env: NodeJS.ProcessEnv = { ...process.env, ...Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)])), DATA_DIR: dataDir };
    for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'RPC_URL_ETHEREUM', 'RPC_URL_BSC', 'BROKER_URL', 'BROKER_ACCOUNT_ID', 'BROKER_KEY', 'BROKER_SECRET', 'PRICE_SOURCE']) {
      delete env[name];
    }
    // Every Node process of the stack and of the examples on one clock, at the chosen instant from now on.
    Object.assign(env, { NODE_OPTIONS: `--import=${SHIFTED_CLOCK}`, SHIFTED_CLOCK_OFFSET_MS: String(instant.at - Date.now()) });

    const stack = run(process.execPath, ['--import', 'tsx', 'start/main.ts'], { ...env, LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' });
    await waitUntil('the ready banner', () => stack.output().includes('Tokenized-stock issuer is ready') || stack.child.exitCode !== null, READY_WITHIN_MS);
    expect([stack.child.exitCode, stack.output().includes('Tokenized-stock issuer is ready') || stack.output().slice(-3_000)]).toEqual([null, true]);
    rememberServerPids();
    // The stack runs in the session of the instant, not of the real clock.
    const { api, keys } = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as { api: string; keys: { read: string } };
    const market = (await (await fetch(`${api}/status/market`, { headers: { 'x-api-key': keys.read } })).json()) as { timestamp: number | string; marketStatus: string };
    const sinceInstant = new Date(market.timestamp).getTime() - instant.at;
    expect(sinceInstant).toBeGreaterThanOrEqual(0);
    expect(sinceInstant).toBeLessThan(READY_WITHIN_MS + 60_000);
    expect(market.marketStatus).toBe(marketStatus(instant.at + sinceInstant, { paused: false, reason: null }).marketStatus);

    const blocks = readmeBlocks(README).filter((block) => !block.flags.includes('no-test'));
    const file = path.join(work, 'readme.sh');
    writeFileSync(file, script(blocks));
    const statuses = path.join(work, 'statuses');
    const progress = path.join(work, 'progress');
    writeFileSync(statuses, '');
    const examples = run('bash', [file], { ...env, __readme_statuses: statuses, __readme_progress: progress });
    const where = () => {
      const line = existsSync(progress) ? Number(readFileSync(progress, 'utf8')) : 0;
      return `README line ${line}: ${README.split('\n')[line - 1] ?? ''}`;
    };
    const code = await withTimeout(examples.exited, EXAMPLES_WITHIN_MS, () => `the examples ran past ${EXAMPLES_WITHIN_MS} ms, at ${where()}\n${examples.output().slice(-3_000)}`);
    expect({ code, at: code === 0 ? undefined : where(), output: code === 0 ? undefined : examples.output().slice(-1_500) }).toEqual({ code: 0, at: undefined, output: undefined });
    expect(examples.output()).toContain('README examples: all ran');
    // The statuses were recorded: the check could have failed.
    expect(readFileSync(statuses, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThan(40);

    process.kill(-stack.child.pid!, 'SIGINT');
    await withTimeout(stack.exited, STOP_WITHIN_MS, () => `npm start did not stop on Ctrl-C: ${stack.output().slice(-2_000)}`);
    const logLines = stack.output().split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\.\d{3}\] /.test(line));
    expect(logLines.at(-1)).toMatch(/INFO.*: stopped$/);
  }, READY_WITHIN_MS + EXAMPLES_WITHIN_MS + STOP_WITHIN_MS + 30_000);
}
