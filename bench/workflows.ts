/**
 * Benchmark: simple workflows (start → one activity → complete) per second through the in-memory Temporal
 * service, with the real SDK worker and client in this process. `tsx bench/workflows.ts` prints the figures;
 * bench/run.ts calls benchWorkflows(). Uses the conformance suite's greetWorkflow and echo activity. The
 * worker connects without gRPC gzip (as worker/main.ts does for the in-memory service): compressing on a
 * loopback connection roughly halves throughput.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startInMemoryTemporal } from '../temporal-server';
import * as activities from '../test/temporal/activities';
import { testWorkflowBundle } from '../test/temporal/environment';

export interface BenchWorkflowsOptions {
  /** Workflows in flight at once (default 50). */
  concurrency?: number;
  /** Workflows measured (default 1000). */
  total?: number;
}

export interface BenchWorkflowsResult {
  workflowsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
}

let runtimeInstalled = false;

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

export async function benchWorkflows(options: BenchWorkflowsOptions = {}): Promise<BenchWorkflowsResult> {
  const concurrency = options.concurrency ?? 50;
  const total = options.total ?? 1000;
  if (!runtimeInstalled) {
    try {
      Runtime.install({ logger: new DefaultLogger('ERROR') });
    } catch {
      // A Runtime installed earlier by the caller is fine.
    }
    runtimeInstalled = true;
  }
  const server = await startInMemoryTemporal();
  const taskQueue = 'bench-workflows';
  const nativeConnection = await NativeConnection.connect({ address: server.address, grpcCompression: { codec: 'none' } });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  const worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { code: await testWorkflowBundle() },
    activities,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentActivityTaskExecutions: 100,
  });
  const running = worker.run();
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
    await runMany(Math.min(100, total), total);
    const startedAt = performance.now();
    const latencies = await runMany(total, 0);
    const elapsedSeconds = (performance.now() - startedAt) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      workflowsPerSecond: Math.round(total / elapsedSeconds),
      p50Ms: Math.round(percentile(latencies, 0.5)),
      p99Ms: Math.round(percentile(latencies, 0.99)),
      total,
    };
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await server.stop();
  }
}

if (require.main === module) {
  benchWorkflows()
    .then((result) => {
      console.log(
        `workflows (start → activity → complete), concurrency 50: ${result.workflowsPerSecond}/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms over ${result.total}`,
      );
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
