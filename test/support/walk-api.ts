/**
 * The real app with everything its operations can reach — the in-memory Temporal service, the live-stream fan-out —
 * on a fresh database, and a key for every access level: what a test that walks every operation of the document
 * calls. `close` stops what it started, whatever failed.
 */
import { Client, Connection } from '@temporalio/client';
import type { Access } from '../../api/contract/operation';
import { createApiKey } from '../../db/queries/api-keys';
import { createMarketStreams } from '../../streams/market-streams';
import { startTemporalServer } from '../../temporal-server';
import { createTestApi, type TestApi } from './api';
import { cloneTemplateDatabase } from './database';

export interface WalkApi {
  api: TestApi;
  /** The key an operation of each access level takes (none for `public`). */
  keyOf: Partial<Record<Access, string>>;
  close(): Promise<void>;
}

export async function startWalkApi(name: string): Promise<WalkApi> {
  const started: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const stop of started.reverse()) await stop();
  };
  try {
    const temporalServer = await startTemporalServer({});
    started.push(() => temporalServer.stop());
    const connection = await Connection.connect({ address: temporalServer.address });
    started.push(() => connection.close());
    const temporal = new Client({ connection, namespace: temporalServer.namespace });
    const database = await cloneTemplateDatabase();
    started.push(() => database.drop());
    const streams = createMarketStreams({ db: database.db });
    await streams.hub.start();
    started.push(() => streams.hub.stop());
    const api = await createTestApi({ temporal, taskQueue: `${name}-${process.pid}`, streams, database });
    const partner = (await createApiKey(api.db, { name: `${name} partner`, scope: 'partner' })).secret;
    return { api, keyOf: { read: api.keys.read, write: api.keys.write, admin: api.keys.admin, partner }, close };
  } catch (error) {
    await close();
    throw error;
  }
}
