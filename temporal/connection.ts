/**
 * Finds the Temporal service this process talks to, in design.md's order:
 * 1. `TEMPORAL_ADDRESS` set → that cluster (namespace `TEMPORAL_NAMESPACE`, default `default`);
 * 2. a `temporal` CLI on PATH → `temporal server start-dev` on free local ports (real server + Web UI);
 * 3. otherwise the embedded service of temporal-server/, started in this process on 127.0.0.1:`TEMPORAL_PORT` (7233,
 *    Temporal's own default) — durable in PostgreSQL when given a database, as `npm start` does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Config } from '../config';
import { freePorts } from '../config/free-port';
import { startTemporalServer } from '../temporal-server';

/** `embedded-durable`: the embedded service keeping its state in PostgreSQL; `in-memory`: the same, forgetting on stop. */
export type TemporalServiceKind = 'external' | 'cli-dev-server' | 'embedded-durable' | 'in-memory';

export interface TemporalService {
  address: string;
  namespace: string;
  kind: TemporalServiceKind;
  /** Web UI address when the service has one (CLI dev server). */
  uiAddress?: string;
  /** Stops what this process started; a no-op for an external cluster. */
  stop(): Promise<void>;
}

export type TemporalSettings = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'> & Partial<Pick<Config, 'TEMPORAL_PORT'>>;

/**
 * Picks the Temporal service per the configuration (see the module header for the order). The embedded service
 * keeps its workflows in `databaseUrl` (durable across restarts) when given, in memory otherwise; the CLI is
 * looked up on `searchPath` (default: this process's PATH).
 */
export async function findTemporalService(
  settings: TemporalSettings,
  options: { databaseUrl?: string; searchPath?: string } = {},
): Promise<TemporalService> {
  const searchPath = options.searchPath ?? process.env.PATH ?? '';
  if (settings.TEMPORAL_ADDRESS) {
    return { address: settings.TEMPORAL_ADDRESS, namespace: settings.TEMPORAL_NAMESPACE, kind: 'external', stop: async () => undefined };
  }
  const cli = findOnPath('temporal', searchPath);
  if (cli) return await startCliDevServer(cli);
  // On Temporal's own port by default (TEMPORAL_PORT), so `npm run ops`, a worker and any client find it.
  const server = await startTemporalServer({ databaseUrl: options.databaseUrl, port: settings.TEMPORAL_PORT ?? 7233 });
  return { address: server.address, namespace: server.namespace, kind: server.durable ? 'embedded-durable' : 'in-memory', stop: () => server.stop() };
}

function findOnPath(command: string, searchPath: string): string | undefined {
  for (const directory of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(directory, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return undefined;
}

const CLI_STOP_GRACE_MS = 5_000;

async function startCliDevServer(cli: string): Promise<TemporalService> {
  const [port, uiPort] = await freePorts(2);
  const child = spawn(cli, ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--ui-port', String(uiPort), '--log-level', 'warn'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const address = `127.0.0.1:${port}`;
  // Whatever ends this process first, the dev server is told to stop too.
  const stopOnExit = (): void => void child.kill('SIGTERM');
  process.on('exit', stopOnExit);
  child.once('exit', () => process.off('exit', stopOnExit));
  try {
    await waitUntilReachable(address, child, 30_000);
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return {
    address,
    namespace: 'default',
    kind: 'cli-dev-server',
    uiAddress: `http://127.0.0.1:${uiPort}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      // SIGKILL past a grace period: one stuck server never keeps the others running.
      const timer = setTimeout(() => child.kill('SIGKILL'), CLI_STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function waitUntilReachable(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal server start-dev exited with code ${child.exitCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > giveUpAt) throw new Error(`temporal server start-dev did not answer on ${address}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
