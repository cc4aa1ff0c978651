/**
 * The real app on a fresh clone of the test database, with one key per scope, for supertest.
 * `clock` pins the service's notion of now where a test needs a particular session.
 */
import type { Client } from '@temporalio/client';
import pino from 'pino';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp, type App } from '../../api/app';
import { createApiKey, type KeyScope } from '../../db/queries/api-keys';
import { MarketDataPipeline } from '../../market-data/pipeline';
import { cloneTemplateDatabase, type TestDb } from './database';

export const TEST_BASE_URL = 'http://issuer.test';

export interface TestApi extends TestDb {
  app: App;
  http: TestAgent;
  keys: Record<KeyScope, string>;
  /** Moves the service's clock (epoch ms); undefined goes back to real time. */
  setNow(now: number | undefined): void;
  close(): Promise<void>;
}

export interface TestApiOptions {
  rateLimitPerSecond?: number;
  rateLimitBurst?: number;
  temporal?: Client;
  /** Use this database instead of a fresh clone (the caller drops it). */
  database?: TestDb;
}

export async function createTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const database = options.database ?? (await cloneTemplateDatabase());
  let pinned: number | undefined;
  const pipeline = new MarketDataPipeline(database.db);
  const app = createApp({
    config: {
      PUBLIC_BASE_URL: TEST_BASE_URL,
      RATE_LIMIT_PER_SECOND: options.rateLimitPerSecond ?? 10_000,
      RATE_LIMIT_BURST: options.rateLimitBurst ?? 10_000,
      BODY_LIMIT_BYTES: 64 * 1024,
      API_KEY_CACHE_SECONDS: 0,
    },
    db: database.db,
    logger: pino({ level: 'silent' }),
    clock: () => pinned ?? Date.now(),
    temporal: options.temporal,
    ingestTicks: async (ticks) => {
      await pipeline.ingest(ticks);
      return { accepted: ticks.length };
    },
  });
  const keys = {} as Record<KeyScope, string>;
  for (const scope of ['read', 'write', 'admin'] as const) {
    keys[scope] = (await createApiKey(database.db, { name: `test ${scope}`, scope })).secret;
  }
  return {
    ...database,
    app,
    http: request(app.koa.callback()),
    keys,
    setNow(now) {
      pinned = now;
      for (const topic of ['prices', 'candles', 'status', 'session-limits', 'corporate-actions', 'catalogue'] as const) app.services.forget(topic);
    },
    close: () => (options.database ? Promise.resolve() : database.drop()),
  };
}
