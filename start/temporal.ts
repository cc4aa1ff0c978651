/**
 * The Temporal part: the service this process talks to (temporal/connection.ts: TEMPORAL_ADDRESS, a `temporal` CLI
 * dev server, or the embedded service — durable in the product's PostgreSQL when given its URL, else in memory) and
 * a client of it, which the API, the worker and the development extras share. Stopping closes the client, then
 * stops what this process started of the service.
 */
import type { Client } from '@temporalio/client';
import type { Logger } from '../config/logger';
import { closeTemporalClient, createTemporalClient } from '../temporal/client';
import { findTemporalService, type TemporalService, type TemporalSettings } from '../temporal/connection';

export interface RunningTemporal extends TemporalService {
  name: string;
  deadlineMs: number;
  client: Client;
}

export interface StartTemporalOptions {
  logger: Logger;
  /** The embedded service keeps its workflows in this database (durable across restarts). */
  databaseUrl?: string;
  /** The embedded service in memory, whatever the configuration names (the partner stack, benchmarks). */
  inMemory?: boolean;
}

export async function startTemporal(settings: TemporalSettings, options: StartTemporalOptions): Promise<RunningTemporal> {
  // In memory: no address, no CLI looked up on an empty PATH, no database — the last choice of the order.
  const service = options.inMemory
    ? await findTemporalService({ TEMPORAL_ADDRESS: undefined, TEMPORAL_NAMESPACE: settings.TEMPORAL_NAMESPACE, TEMPORAL_PORT: settings.TEMPORAL_PORT }, { searchPath: '' })
    : await findTemporalService(settings, { databaseUrl: options.databaseUrl });
  options.logger.info({ address: service.address, namespace: service.namespace, kind: service.kind }, 'Temporal service found');
  let client: Client;
  try {
    client = await createTemporalClient({ address: service.address, namespace: service.namespace });
  } catch (error) {
    await service.stop();
    throw error;
  }
  return {
    ...service,
    name: 'Temporal service',
    deadlineMs: 10_000,
    client,
    async stop() {
      await closeTemporalClient(client).catch(() => undefined);
      await service.stop();
    },
  };
}
