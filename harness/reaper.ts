/**
 * A reaper beside this process, for what tests and benchmarks start: when this process ends in any way — even killed,
 * when no handler of its own runs (jest also runs test files in a sandbox whose `process` does not see signals) — the
 * reaper stops what it was told of and what carries this process's tag, rather than leave it running.
 *
 * - `reapGroupWithThisProcess(pid)`: the process group `pid` leads (a detached child) is killed when this process ends;
 *   the returned function forgets it (it exited, or was stopped).
 * - `removeWithThisProcess(directory)`: the directory is removed once that is done (a throw-away database's files).
 * - `tagProcessesStartedHere()`: every process started from here on inherits an environment variable naming this
 *   process's reaper (PostgreSQL, anvil, the roles and their children, however deep); those still running when this
 *   process ends get SIGTERM, and SIGKILL two seconds later. Found through /proc, so on Linux only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const REAPER_TAG_VARIABLE = 'ISSUER_REAPER_TAG';

/**
 * Told through its stdin of process groups (`+pid`, `-pid`) and of the tag it sweeps (`tag <value>`); acts when
 * that stdin closes, which is when the process that spawned it ends.
 */
const REAPER = `
const fs = require('node:fs');
const groups = new Set();
const directories = new Set();
let tag;
let pending = '';
process.stdin.on('data', (chunk) => {
  const lines = (pending + chunk).split('\\n');
  pending = lines.pop();
  for (const line of lines) {
    if (line.startsWith('tag ')) tag = line.slice(4);
    else if (line.startsWith('+dir ')) directories.add(line.slice(5));
    else if (line.startsWith('-dir ')) directories.delete(line.slice(5));
    else (line[0] === '+' ? groups.add : groups.delete).call(groups, Number(line.slice(1)));
  }
});
const tagged = () => {
  if (!tag) return [];
  const wanted = '${REAPER_TAG_VARIABLE}=' + tag;
  const found = [];
  let entries = [];
  try { entries = fs.readdirSync('/proc'); } catch {}
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try { if (fs.readFileSync('/proc/' + entry + '/environ', 'latin1').split('\\0').includes(wanted)) found.push(pid); } catch {}
  }
  return found;
};
const signal = (pid, name) => { try { process.kill(pid, name); } catch {} };
const end = () => {
  for (const directory of directories) { try { fs.rmSync(directory, { recursive: true, force: true }); } catch {} }
  process.exit(0);
};
process.stdin.on('close', () => {
  for (const pid of groups) signal(-pid, 'SIGKILL');
  const first = tagged();
  for (const pid of first) signal(pid, 'SIGTERM');
  if (first.length === 0) return end();
  setTimeout(() => {
    for (const pid of tagged()) signal(pid, 'SIGKILL');
    // Let the killed go before their directories do.
    setTimeout(end, 200);
  }, 2000);
});`;

let reaper: ChildProcess | undefined;

function tell(line: string): void {
  if (!reaper) {
    reaper = spawn(process.execPath, ['-e', REAPER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    // Neither the reaper nor its pipe (a socket) keeps this process alive.
    reaper.unref();
    (reaper.stdin as unknown as { unref(): void }).unref();
  }
  reaper.stdin!.write(`${line}\n`);
}

/** Kills the process group `pid` leads when this process ends, unless forgotten first (the returned function). */
export function reapGroupWithThisProcess(pid: number): () => void {
  tell(`+${pid}`);
  return () => tell(`-${pid}`);
}

/** Removes `directory` when this process ends (after what the reaper stops), unless forgotten first (the returned function). */
export function removeWithThisProcess(directory: string): () => void {
  tell(`+dir ${directory}`);
  return () => tell(`-dir ${directory}`);
}

/** Tags every process started from now on from this one; those left running when this process ends are stopped. */
export function tagProcessesStartedHere(): void {
  if (process.env[REAPER_TAG_VARIABLE]?.startsWith(`${process.pid}-`)) return;
  const tag = `${process.pid}-${randomBytes(8).toString('hex')}`;
  tell(`tag ${tag}`);
  process.env[REAPER_TAG_VARIABLE] = tag;
}
