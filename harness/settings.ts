/**
 * The product's configuration as the benchmarks and tests run it: the schema's defaults (config/index.ts) on free
 * local ports (`defaultConfig`: the benchmarks measure the product as it runs), and for the tests besides the base URL
 * they assert against, rate limits that never bite, keys never cached, every answer checked against the OpenAPI
 * document, a settlement grace of a minute and webhooks to local receivers on a compressed schedule (`testConfig`); and a logger that says nothing.
 */
import pino from 'pino';
import { configSchema, type Config } from '../config';
import type { Logger } from '../config/logger';
import { newWebhookMasterKey } from '../webhooks/secret-box';

export const TEST_BASE_URL = 'http://issuer.test';

export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...configSchema.parse({}), HOST: '127.0.0.1', PORT: 0, GRPC_PORT: 0, TEMPORAL_PORT: 0, ...overrides };
}

/** One webhook master key per test process: what its API seals, its workers open. */
const TEST_WEBHOOK_KEYS = newWebhookMasterKey();

export function testConfig(overrides: Partial<Config> = {}): Config {
  return defaultConfig({
    PUBLIC_BASE_URL: TEST_BASE_URL,
    RATE_LIMIT_PER_SECOND: 10_000,
    RATE_LIMIT_BURST: 10_000,
    API_KEY_CACHE_SECONDS: 0,
    AUTH_FAILURES_PER_MINUTE: 10_000,
    // Every answer is checked against the OpenAPI document; one that is off it fails as a 500.
    CHECK_ANSWERS: 'fail',
    ATTESTATION_SETTLEMENT_GRACE_MS: 60_000,
    LOG_LEVEL: 'silent',
    // Webhooks to local receivers, retried on a compressed schedule.
    WEBHOOK_SECRET_KEYS: TEST_WEBHOOK_KEYS,
    WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.0/8', '::1/128'],
    WEBHOOK_ALLOW_HTTP: true,
    WEBHOOK_RETRY_SCHEDULE: [0, 200, 500, 1_000, 2_000],
    WEBHOOK_TIMEOUT_MS: 2_000,
    ...overrides,
  });
}

export function quietLogger(): Logger {
  return pino({ level: 'silent' });
}

/** A Wednesday at 10:30 in New York (regular session): where the pinned clocks of runs that trade start. */
export const REGULAR_SESSION_INSTANT = Date.parse('2025-09-03T14:30:00Z');

/**
 * A clock that runs at real speed from `start` (default `REGULAR_SESSION_INSTANT`): what depends on the market
 * session sees the same session at any hour on any day, while latencies and timeouts still pass as they do.
 */
export function pinnedClock(start: number = REGULAR_SESSION_INSTANT): () => number {
  const offset = start - Date.now();
  return () => Date.now() + offset;
}
