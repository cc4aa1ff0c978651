/**
 * The embedded Temporal service: a gRPC WorkflowService that the unmodified Temporal SDK worker and client
 * talk to, for machines that cannot download a Temporal binary. One namespace, one port.
 *
 * Two modes (README.md): in memory (`startInMemoryTemporal`, or `startTemporalServer` without a database URL),
 * with the time-skipping TestService and a virtual clock — the test suite's fast path; and durable
 * (`startTemporalServer({ databaseUrl })`), which stores every run, its history, visibility row and request ids
 * in PostgreSQL before answering, and on start carries on every run it finds there. Real time only.
 */
import * as grpc from '@grpc/grpc-js';
import { type VirtualClock } from './clock';
import { NamespaceEngine } from './engine';
import { serviceDefinitions } from './proto';
import { testServiceHandlers, workflowServiceHandlers } from './service';
import { PostgresRunStore } from './store/postgres-store';

export interface InMemoryTemporalOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  host?: string;
  namespace?: string;
  /** How long an empty task poll waits before answering (default 60 s, as real servers). */
  pollTimeoutMs?: number;
  /** How long a query waits for a worker to answer (default 10 s, or the call's deadline). */
  queryTimeoutMs?: number;
}

export interface InMemoryTemporal {
  /** host:port for Connection / NativeConnection. */
  address: string;
  namespace: string;
  clock: VirtualClock;
  stop(): Promise<void>;
}

export interface TemporalServerOptions extends InMemoryTemporalOptions {
  /**
   * PostgreSQL connection URL: the durable mode (schema `temporal`, migrated at start; one service per
   * database). Without it everything stays in memory.
   */
  databaseUrl?: string;
}

export interface TemporalServer extends InMemoryTemporal {
  /** Whether runs are stored in PostgreSQL. */
  durable: boolean;
  /** What the start found in the database (durable mode; zeros in memory). */
  restored: { runs: number; openRuns: number; ms: number };
}

/** Starts the service in memory and resolves once it listens. */
export function startInMemoryTemporal(options: InMemoryTemporalOptions = {}): Promise<InMemoryTemporal> {
  return startTemporalServer({ ...options, databaseUrl: undefined });
}

/**
 * Starts the service — durable when `databaseUrl` is given: it migrates its schema, rebuilds every stored
 * run and resumes the open ones before it listens — and resolves once it listens.
 */
export async function startTemporalServer(options: TemporalServerOptions = {}): Promise<TemporalServer> {
  const host = options.host ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const startedAt = performance.now();
  const store = options.databaseUrl ? await PostgresRunStore.open(options.databaseUrl) : undefined;
  const engine = new NamespaceEngine({
    namespace,
    pollTimeoutMs: options.pollTimeoutMs ?? 60_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    historyLongPollMs: 20_000,
    store,
  });
  const restored = { runs: 0, openRuns: 0, ms: 0 };
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 128 * 1024 * 1024, 'grpc.max_send_message_length': 128 * 1024 * 1024 });
  try {
    if (store) {
      const loaded = await store.load();
      engine.restore(loaded);
      restored.runs = loaded.length;
      restored.openRuns = engine.openRunCount;
      restored.ms = Math.round(performance.now() - startedAt);
    }
    const definitions = serviceDefinitions();
    server.addService(definitions.workflowService, workflowServiceHandlers(engine));
    // Time skipping moves a virtual clock; stored runs live in real time, so the durable mode has no TestService.
    if (!store) server.addService(definitions.testService, testServiceHandlers(engine));
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(`${host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      );
    });
    return {
      address: `${host}:${port}`,
      namespace,
      clock: engine.clock,
      durable: store !== undefined,
      restored,
      stop: async () => {
        engine.stop();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, 2000);
          server.tryShutdown(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        await store?.close();
      },
    };
  } catch (error) {
    engine.stop();
    server.forceShutdown();
    await store?.close();
    throw error;
  }
}
