/**
 * The embedded Temporal service as a child process (`temporal-server/main.ts`), for tests that kill it: a
 * single node process (tsx registered in it, no wrapper), so its pid is the service's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export interface ServiceProcess {
  pid: number;
  address: string;
  /** Its console output so far (for failure messages). */
  output(): string;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Starts `temporal-server/main.ts --port <port> --database-url <url>` and waits until it listens. */
export async function startServiceProcess(port: number, databaseUrl: string, timeoutMs = 30_000): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'temporal-server', 'main.ts'), '--port', String(port), '--database-url', databaseUrl], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the service did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
      const check = () => {
        if (output.includes('listening on')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited with ${code}:\n${output}`));
      });
    });
  } catch (error) {
    await kill('SIGKILL');
    throw error;
  }
  return { pid: child.pid!, address: `127.0.0.1:${port}`, output: () => output, kill };
}
