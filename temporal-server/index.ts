/**
 * The in-memory Temporal service: a gRPC WorkflowService (plus the time-skipping TestService) that the
 * unmodified Temporal SDK worker and client talk to, for machines that cannot download a Temporal binary.
 * One namespace, all state in memory, one virtual clock.
 */
import * as grpc from '@grpc/grpc-js';
import { type VirtualClock } from './clock';
import { NamespaceEngine } from './engine';
import { serviceDefinitions } from './proto';
import { testServiceHandlers, workflowServiceHandlers } from './service';

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

/** Starts the service and resolves once it listens. */
export async function startInMemoryTemporal(options: InMemoryTemporalOptions = {}): Promise<InMemoryTemporal> {
  const host = options.host ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const engine = new NamespaceEngine({
    namespace,
    pollTimeoutMs: options.pollTimeoutMs ?? 60_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
    historyLongPollMs: 20_000,
  });
  const definitions = serviceDefinitions();
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 128 * 1024 * 1024, 'grpc.max_send_message_length': 128 * 1024 * 1024 });
  server.addService(definitions.workflowService, workflowServiceHandlers(engine));
  server.addService(definitions.testService, testServiceHandlers(engine));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });
  return {
    address: `${host}:${port}`,
    namespace,
    clock: engine.clock,
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
    },
  };
}
