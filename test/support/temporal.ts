/**
 * Workflows on a real SDK worker for tests: the in-memory Temporal service (or a real cluster when
 * TEMPORAL_ADDRESS is set), a client, a worker (worker/run-worker.ts) over a workflow bundle with the given
 * activities, and time skipping (in-memory only). Bundles are built once per source version and cached on disk
 * (harness/workflow-bundle.ts), so test files do not each pay for webpack. Also the recorded histories that replay
 * tests read.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import pino from 'pino';
import { runAttestationWorkflowStarts } from '../../attestations/lifecycle-workflows';
import type { Database } from '../../db/pool';
import { productBundle } from '../../harness/workflow-bundle';
import { startTemporalServer } from '../../temporal-server';
import { TimeSkipping } from '../../temporal-server/time-skipping-client';
import { runWorker, type RunningSdkWorker } from '../../worker/run-worker';

export { eventually } from './eventually';
export { productBundle };

const ROOT = path.join(__dirname, '..', '..');

export interface WorkerEnvironment {
  /** host:port of the service. */
  address: string;
  client: Client;
  taskQueue: string;
  /** Present only against the in-memory service (not its durable mode). */
  timeSkipping?: TimeSkipping;
  /** True when running against a real server (TEMPORAL_ADDRESS). */
  external: boolean;
  /** Stops the worker only (to test what happens while no worker runs). */
  stopWorker(): Promise<void>;
  /** Starts a fresh worker on the same task queue. */
  startWorker(activities: object): Promise<void>;
  teardown(): Promise<void>;
}

let runtimeInstalled = false;

/** Starts the service (unless external), a client and a worker on a fresh task queue. */
export async function startWorkerEnvironment(options: {
  bundle: () => Promise<string>;
  activities: object;
  taskQueuePrefix: string;
  /** Runs the embedded service in its durable mode on this database. */
  databaseUrl?: string;
}): Promise<WorkerEnvironment> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const externalAddress = process.env.TEMPORAL_ADDRESS;
  const server = externalAddress ? undefined : await startTemporalServer({ databaseUrl: options.databaseUrl });
  const address = externalAddress ?? server!.address;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `${options.taskQueuePrefix}-${process.pid}-${Date.now()}`;
  const [code, connection] = await Promise.all([options.bundle(), Connection.connect({ address })]);
  let worker: RunningSdkWorker | undefined;
  const startWorker = async (activities: object) => {
    worker = await runWorker({ address, namespace, taskQueue, activities, workflows: { workflowBundle: { code } }, compress: !server });
  };
  const stopWorker = async () => {
    await worker?.stop();
    worker = undefined;
  };
  await startWorker(options.activities);
  const timeSkipping = server && !server.durable ? TimeSkipping.connect(address) : undefined;
  return {
    address,
    client: new Client({ connection, namespace }),
    taskQueue,
    timeSkipping,
    external: !server,
    startWorker,
    stopWorker,
    async teardown() {
      await stopWorker();
      await connection.close();
      timeSkipping?.close();
      await server?.stop();
    },
  };
}

export type ProductTemporal = WorkerEnvironment;

/**
 * The product's workflows on a worker with the given activities; with `attestationsIn`, the worker also starts the
 * workflows of the attestations stored there as the product's worker does (their outbox), until teardown.
 */
export async function startProductTemporal(activities: object, options: { attestationsIn?: Database } = {}): Promise<ProductTemporal> {
  const environment = await startWorkerEnvironment({ bundle: productBundle, activities, taskQueuePrefix: 'issuer-test' });
  const db = options.attestationsIn;
  if (!db) return environment;
  const starts = runAttestationWorkflowStarts({ db, client: environment.client, taskQueue: environment.taskQueue, logger: pino({ level: 'silent' }) });
  return {
    ...environment,
    async teardown() {
      await starts.stop();
      await environment.teardown();
    },
  };
}

type History = temporal.api.history.v1.IHistory;

/**
 * Histories as JSON files (protobuf JSON names, enums as names, int64 as strings, bytes as base64). Uses
 * @temporalio/proto's own converters: this install's historyToJSON/historyFromJSON trip over two copies of
 * protobufjs.
 */
export function historyToJsonText(history: History): string {
  const object = temporal.api.history.v1.History.toObject(temporal.api.history.v1.History.fromObject(history), {
    longs: String,
    enums: String,
    bytes: String,
  });
  return `${JSON.stringify(object, null, 2)}\n`;
}

export function historyFromJsonText(text: string): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(JSON.parse(text) as object);
}

const PRODUCT_HISTORIES = path.join(ROOT, 'test', 'histories', 'product');

/**
 * Stores a finished workflow's history for test/workflows/replay.test.ts when RECORD_HISTORIES is set
 * (`RECORD_HISTORIES=1 npx jest test/workflows test/chain`).
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
