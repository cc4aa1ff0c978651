/**
 * Test environment for workflow tests: the Temporal service (the in-memory one, or a real cluster when
 * TEMPORAL_ADDRESS is set), a client, a running worker over test/temporal's workflows and activities, and
 * time skipping (in-memory service only). The workflow bundle is built once and cached on disk by content
 * hash, so test files do not each pay for webpack.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startInMemoryTemporal } from '../../temporal/server';
import { TimeSkipping } from '../../temporal/testing';
import * as activities from './activities';

export const workflowsPath = path.join(__dirname, 'workflows.ts');

/** The test workflows bundled once per source version; returns the bundle's code. */
export async function testWorkflowBundle(): Promise<string> {
  const hash = createHash('sha256').update(readFileSync(workflowsPath)).digest('hex').slice(0, 16);
  const cached = path.join(os.tmpdir(), `temporal-test-workflows-${hash}.js`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  writeFileSync(cached, code);
  return code;
}

export interface TestEnvironment {
  client: Client;
  taskQueue: string;
  /** Present only against the in-memory service. */
  timeSkipping?: TimeSkipping;
  /** True when running against a real server (TEMPORAL_ADDRESS). */
  external: boolean;
  workflowBundle: { code: string };
  teardown(): Promise<void>;
}

let runtimeInstalled = false;

/** Starts service (unless external), client and a worker on a fresh task queue. */
export async function startTestEnvironment(): Promise<TestEnvironment> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    runtimeInstalled = true;
  }
  const externalAddress = process.env.TEMPORAL_ADDRESS;
  const server = externalAddress ? undefined : await startInMemoryTemporal();
  const address = externalAddress ?? server!.address;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = `test-${process.pid}-${Date.now()}`;
  const [code, nativeConnection, connection] = await Promise.all([
    testWorkflowBundle(),
    NativeConnection.connect({ address, grpcCompression: { codec: server ? 'none' : 'gzip' } }),
    Connection.connect({ address }),
  ]);
  const workflowBundle = { code };
  const worker = await Worker.create({ connection: nativeConnection, namespace, taskQueue, workflowBundle, activities });
  const running = worker.run();
  const timeSkipping = server ? TimeSkipping.connect(address) : undefined;
  return {
    client: new Client({ connection, namespace }),
    taskQueue,
    timeSkipping,
    external: !server,
    workflowBundle,
    teardown: async () => {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      timeSkipping?.close();
      await server?.stop();
    },
  };
}

/** Polls `check` until it stops throwing (visibility and histories settle asynchronously on real servers). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
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
