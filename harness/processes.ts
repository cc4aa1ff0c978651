/**
 * Processes a test or the campaign starts (`node --import tsx <entry>`), each in its own process group, its output
 * kept for the error that names it; stopped by its pid whatever happens — SIGTERM, then SIGKILL to the group past a
 * deadline; and should the starting process itself exit or be stopped (Ctrl-C, a CI timeout) before it stops them,
 * their groups are killed with it rather than left running (harness/reaper.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { reapGroupWithThisProcess } from './reaper';

const ROOT = path.join(__dirname, '..');
/** How much of a process's output is kept for error messages. */
const KEPT_OUTPUT_CHARS = 20_000;

export interface TestProcess {
  name: string;
  pid: number;
  /** stdout and stderr so far (the last part). */
  output(): string;
  /** Resolves when stdout or stderr has a line matching `pattern`; rejects when the process exits first or past `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<number | NodeJS.Signals>;
  /** SIGTERM to its group, SIGKILL past `deadlineMs`; resolves once exited. */
  stop(deadlineMs?: number): Promise<void>;
  /** SIGKILL to the process itself (a crash), resolves once exited. */
  kill(): Promise<void>;
  /** Whether it has not exited yet. */
  running(): boolean;
}

export function startProcess(name: string, entry: string, args: string[], env: NodeJS.ProcessEnv): TestProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<(line: string) => void>();
  let pending = '';
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-KEPT_OUTPUT_CHARS);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) for (const listener of listeners) listener(line);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? 0)));
  const forget = reapGroupWithThisProcess(child.pid!);
  let done = false;
  void exited.then(() => {
    done = true;
    forget();
  });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  return {
    name,
    pid: child.pid!,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const found = output.split('\n').find((line) => pattern.test(line));
        if (found !== undefined) return resolve(found);
        const timer = setTimeout(() => finish(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms; output:\n${output}`)), timeoutMs);
        const listener = (line: string) => {
          if (pattern.test(line)) finish(undefined, line);
        };
        const finish = (error?: Error, line?: string) => {
          clearTimeout(timer);
          listeners.delete(listener);
          if (error) reject(error);
          else resolve(line!);
        };
        listeners.add(listener);
        void exited.then((code) => finish(new Error(`${name} exited (${code}) before a line matching ${pattern}; output:\n${output}`)));
      });
    },
    async stop(deadlineMs = 15_000) {
      if (done) return;
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), deadlineMs);
      await exited;
      clearTimeout(timer);
      signalGroup('SIGKILL'); // anything of its group left behind
    },
    async kill() {
      if (!done) child.kill('SIGKILL');
      await exited;
    },
    running: () => !done,
  };
}

/**
 * The environment of a product role started as its own process (the production shape): this one's, without anything
 * that would point it at another deployment (database, Temporal, chains, brokerage, ports, keys) or preload a clock;
 * JSON logs at info, on 127.0.0.1. The test adds what the role is to use.
 */
export function roleEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_URL|TEMPORAL_|RPC_URL_|BROKER_|NODE_OPTIONS|METRICS_PORT|PORT|GRPC_PORT|DEVELOPMENT_KEYS|ATTESTATION_)/.test(name)) delete env[name];
  }
  return { ...env, LOG_FORMAT: 'json', LOG_LEVEL: 'info', HOST: '127.0.0.1' };
}
