/**
 * The product's workflows on a real SDK worker for tests: the in-memory Temporal service (or a real
 * cluster when TEMPORAL_ADDRESS is set), a client, a worker over workflows/index.ts with the given
 * activities, and time skipping (in-memory only). The bundle is built once per source version.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startInMemoryTemporal } from '../../temporal/server';
import { TimeSkipping } from '../../temporal/testing';
import { historyToJsonText } from '../temporal/environment';

const ROOT = path.join(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, 'workflows');

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const dir of [WORKFLOWS, path.join(ROOT, 'temporal')]) {
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts')).sort()) hash.update(readFileSync(path.join(dir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The product workflows bundled once per source version; returns the bundle's code. */
export async function productBundle(): Promise<string> {
  const cached = path.join(os.tmpdir(), `issuer-workflows-${sourcesHash()}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve(WORKFLOWS), logger: new DefaultLogger('WARN') });
  writeFileSync(cached, code);
  return code;
}

export interface ProductTemporal {
  client: Client;
  taskQueue: string;
  /** Present only against the in-memory service. */
  timeSkipping?: TimeSkipping;
  /** Stops the worker only (to test what happens while no worker runs). */
  stopWorker(): Promise<void>;
  /** Starts a fresh worker on the same task queue. */
  startWorker(activities: object): Promise<void>;
  teardown(): Promise<void>;
}

let runtimeInstalled = false;

export async function startProductTemporal(activities: object): Promise<ProductTemporal> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const externalAddress = process.env.TEMPORAL_ADDRESS;
  const server = externalAddress ? undefined : await startInMemoryTemporal();
  const address = externalAddress ?? server!.address;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `issuer-test-${process.pid}-${Date.now()}`;
  const [code, nativeConnection, connection] = await Promise.all([
    productBundle(),
    NativeConnection.connect({ address, grpcCompression: { codec: server ? 'none' : 'gzip' } }),
    Connection.connect({ address }),
  ]);
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const startWorker = async (workerActivities: object) => {
    worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowBundle: { code }, activities: workerActivities });
    running = worker.run();
  };
  const stopWorker = async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    worker = undefined;
  };
  await startWorker(activities);
  const timeSkipping = server ? TimeSkipping.connect(address) : undefined;
  return {
    client: new Client({ connection, namespace }),
    taskQueue,
    timeSkipping,
    startWorker,
    stopWorker,
    async teardown() {
      await stopWorker();
      await nativeConnection.close();
      await connection.close();
      timeSkipping?.close();
      await server?.stop();
    },
  };
}

const PRODUCT_HISTORIES = path.join(ROOT, 'test', 'histories', 'product');

/**
 * Stores a finished workflow's history for test/workflows/replay.test.ts when RECORD_HISTORIES is set
 * (`RECORD_HISTORIES=1 npx jest test/workflows`).
 */
export async function recordProductHistory(name: string, handle: WorkflowHandle): Promise<void> {
  if (!process.env.RECORD_HISTORIES) return;
  mkdirSync(PRODUCT_HISTORIES, { recursive: true });
  writeFileSync(path.join(PRODUCT_HISTORIES, `${name}.json`), historyToJsonText(await handle.fetchHistory()));
}

export function productHistoryFiles(): string[] {
  return existsSync(PRODUCT_HISTORIES)
    ? readdirSync(PRODUCT_HISTORIES).filter((file) => file.endsWith('.json')).map((file) => path.join(PRODUCT_HISTORIES, file))
    : [];
}

/** Polls `check` until it passes or `timeoutMs` runs out (then throws its last error). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
