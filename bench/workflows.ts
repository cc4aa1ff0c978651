/**
 * Benchmark: simple workflows (start → one activity → complete) per second through the embedded Temporal
 * service, in memory and durable (PostgreSQL), with the real SDK worker and client in this process; and the
 * durable service's restart time with many open workflows. `npm run bench -- workflows` prints them alone
 * (on scratch databases of DATABASE_URL's server, or of a throw-away embedded one); `npm run bench` with the rest. Uses the conformance suite's greetWorkflow and echo activity. The
 * worker connects without gRPC gzip (as the product's worker does for the embedded service): compressing on a
 * loopback connection roughly halves throughput.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { startTemporalServer, type TemporalServer } from '../temporal-server';
import { createScratchDatabase } from '../harness/database';
import * as activities from '../harness/temporal-workload/activities';
import { workloadBundle } from '../harness/workflow-bundle';
import { runWorker, type RunWorkerParameters } from '../worker/run-worker';

export interface BenchWorkflowsOptions {
  /** Workflows in flight at once (default 50). */
  concurrency?: number;
  /** Workflows measured (default 3000). */
  total?: number;
  /**
   * Workflows run first and not measured (default 2000). A fresh worker is slow at first: on the development machine
   * each thousand completes at about 200/s at the start and at a steady 270–290/s from the third on.
   */
  warmUp?: number;
  /** Runs the service durable on this database (default: in memory). */
  databaseUrl?: string;
}

export interface BenchWorkflowsResult {
  workflowsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  warmUp: number;
}

export interface BenchRestartResult {
  openWorkflows: number;
  /** From start to listening: connect, migrate, load and rebuild every run, resume the open ones. */
  restartMs: number;
  /** Runs the restart found (all of them open). */
  restoredOpenRuns: number;
}

/** The threads the product's worker runs workflow code on by default (WORKFLOW_THREADS), as this worker does. */
const PRODUCT_WORKFLOW_THREADS = loadConfig(['WORKFLOW_THREADS'], {}).WORKFLOW_THREADS;

let runtimeInstalled = false;

function installRuntime(): void {
  if (runtimeInstalled) return;
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // A Runtime installed earlier by the caller is fine.
  }
  runtimeInstalled = true;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** A client of `server` and a worker over the workload on `taskQueue`; `close` stops the worker, then the client. */
async function workloadOn(server: TemporalServer, taskQueue: string, options: RunWorkerParameters['options']) {
  installRuntime();
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const worker = await runWorker({
    address: server.address,
    namespace: server.namespace,
    taskQueue,
    workflows: { workflowBundle: { code: await workloadBundle() } },
    activities,
    compress: false,
    options,
  });
  return {
    client,
    worker: worker.worker,
    async close() {
      await worker.stop();
      await connection.close();
    },
  };
}

export async function benchWorkflows(options: BenchWorkflowsOptions = {}): Promise<BenchWorkflowsResult> {
  const concurrency = options.concurrency ?? 50;
  const total = options.total ?? 3000;
  const warmUp = options.warmUp ?? 2000;
  const server = await startTemporalServer({ databaseUrl: options.databaseUrl });
  const taskQueue = 'bench-workflows';
  const { client, close } = await workloadOn(server, taskQueue, {
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentActivityTaskExecutions: 100,
    workflowThreadPoolSize: PRODUCT_WORKFLOW_THREADS,
  });
  try {
    const runOne = async (index: number, latencies: number[]) => {
      const startedAt = performance.now();
      await client.workflow.execute('greetWorkflow', { taskQueue, workflowId: `bench-${index}`, args: [`n${index}`] });
      latencies.push(performance.now() - startedAt);
    };
    const runMany = async (count: number, offset: number) => {
      const latencies: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(concurrency, count) }, async () => {
          while (next < count) await runOne(offset + next++, latencies);
        }),
      );
      return latencies;
    };
    await runMany(warmUp, total);
    const startedAt = performance.now();
    const latencies = await runMany(total, 0);
    const elapsedSeconds = (performance.now() - startedAt) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      workflowsPerSecond: Math.round(total / elapsedSeconds),
      p50Ms: Math.round(percentile(latencies, 0.5)),
      p99Ms: Math.round(percentile(latencies, 0.99)),
      total,
      warmUp,
    };
  } finally {
    await close();
    await server.stop();
  }
}

/**
 * Restart of the durable service with `openWorkflows` open workflows: each is started and its first workflow
 * task completed by a worker (it then waits on an hour-long timer), the service stops, and the time a new
 * start takes until it listens is measured.
 */
export async function benchRestart(databaseUrl: string, openWorkflows = 10_000): Promise<BenchRestartResult> {
  let server: TemporalServer = await startTemporalServer({ databaseUrl });
  const taskQueue = 'bench-restart';
  const { client, worker, close } = await workloadOn(server, taskQueue, { maxConcurrentWorkflowTaskExecutions: 200, maxCachedWorkflows: 0 });
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < openWorkflows) {
          const index = next++;
          await client.workflow.start('sleepWorkflow', { taskQueue, workflowId: `bench-open-${index}`, args: [60 * 60 * 1000] });
        }
      }),
    );
    // Wait until every workflow waits on its timer (its first workflow task completed).
    for (;;) {
      const { count } = await client.workflow.count(`WorkflowType = 'sleepWorkflow' AND ExecutionStatus = 'Running'`);
      if (count >= openWorkflows && worker.getStatus().numInFlightWorkflowActivations === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } finally {
    await close();
    await server.stop();
  }
  const startedAt = performance.now();
  server = await startTemporalServer({ databaseUrl });
  const restartMs = Math.round(performance.now() - startedAt);
  const restoredOpenRuns = server.restored.openRuns;
  await server.stop();
  return { openWorkflows, restartMs, restoredOpenRuns };
}

export interface BenchWorkflowModesResult {
  inMemory: BenchWorkflowsResult;
  durable: BenchWorkflowsResult;
  /** durable / in-memory workflows per second (goal ≥ 0.5). */
  ratio: number;
  restart: BenchRestartResult;
}

/** Both modes back to back, then the restart with 10,000 open workflows; each on a scratch database of `serverUrl`. */
export async function benchWorkflowModes(serverUrl: string, options: Pick<BenchWorkflowsOptions, 'concurrency' | 'total' | 'warmUp'> & { openWorkflows?: number } = {}): Promise<BenchWorkflowModesResult> {
  const inMemory = await benchWorkflows(options);
  const throughputDatabase = await createScratchDatabase(serverUrl, { prefix: 'temporal_bench' });
  let durable: BenchWorkflowsResult;
  try {
    durable = await benchWorkflows({ ...options, databaseUrl: throughputDatabase.url });
  } finally {
    await throughputDatabase.drop();
  }
  const restartDatabase = await createScratchDatabase(serverUrl, { prefix: 'temporal_bench_restart' });
  try {
    const restart = await benchRestart(restartDatabase.url, options.openWorkflows ?? 10_000);
    return { inMemory, durable, ratio: durable.workflowsPerSecond / inMemory.workflowsPerSecond, restart };
  } finally {
    await restartDatabase.drop();
  }
}

/** The figures as bench/run.ts prints them. */
export function formatWorkflowModes(result: BenchWorkflowModesResult, concurrency = 50): string[] {
  const line = (name: string, figures: BenchWorkflowsResult) =>
    `  ${name}: ${figures.workflowsPerSecond}/s   p50 ${figures.p50Ms} ms   p99 ${figures.p99Ms} ms over ${figures.total} after ${figures.warmUp} unmeasured`;
  return [
    `Workflows through the embedded Temporal service (start → one activity → complete), concurrency ${concurrency}`,
    line('in memory', result.inMemory),
    line('durable (PostgreSQL)', result.durable),
    `  durable / in-memory: ${result.ratio.toFixed(2)} (goal ≥ 0.50)`,
    `  restart with ${result.restart.openWorkflows} open workflows: ${result.restart.restartMs} ms to listening, ${result.restart.restoredOpenRuns} runs resumed (goal ≤ 10 s)`,
  ];
}
