/**
 * Webhook delivery, measured on the product's worker part (worker/start-worker.ts: the wake-up loop, one
 * `webhookEndpointWorkflow` per endpoint, `deliverDueWebhooks`) on the in-memory Temporal service, to a local receiver
 * answering 204 at once:
 * - event → delivered at 1 000 attestations a minute: attestations stored at 16.7/s for BENCH_SECONDS over 10
 *   accounts, each seen on a chain at once (`attestation.executing`) and final a second later (`attestation.executed`):
 *   about 33 events/s to 10 endpoints. Latency runs from the event's transaction (`timestamp` of the envelope, its
 *   `occurred_at`) to the receiver's arrival, on one clock; p50/p99;
 * - deliveries per second to one endpoint: DRAIN_EVENTS events on as many resources, queued in one transaction,
 *   drained with WEBHOOK_CONCURRENCY_PER_ENDPOINT in flight; and SERIAL_EVENTS on one resource (strictly one at a time).
 * `npm run bench -- webhooks` prints them alone; `npm run bench` runs them with the rest.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookEnvelope } from '../domain/webhook-events';
import { createAccount } from '../db/queries/accounts';
import { storeAttestationsAndCommit, type NewAttestation } from '../db/queries/attestations';
import { promoteFinal, recordObservedExecutions } from '../db/queries/chain-observations';
import { insertWebhookEndpoint } from '../db/queries/webhooks';
import { createPool, type Database } from '../db/pool';
import { defaultConfig, quietLogger } from '../harness/settings';
import { productBundle } from '../harness/workflow-bundle';
import { startTemporal } from '../start/temporal';
import { createSecretBox, newWebhookMasterKey } from '../webhooks/secret-box';
import { newWebhookSecret } from '../webhooks/signing';
import { startWorker } from '../worker/start-worker';

const ATTESTATIONS_PER_SECOND = 1_000 / 60;
const ENDPOINTS = 10;
const DRAIN_EVENTS = 5_000;
const SERIAL_EVENTS = 500;
const CHAIN = 'ethereum-1';

export interface BenchWebhooksResult {
  seconds: number;
  events: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  concurrency: number;
  drain: { events: number; perSecond: number };
  serial: { events: number; perSecond: number };
}

/** A receiver answering 204 at once; it notes when each webhook-id first arrived and how late after its event. */
async function startReceiver() {
  const firstArrival = new Map<string, number>();
  const latencies: number[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const now = Date.now();
      const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookEnvelope;
      if (!firstArrival.has(envelope.id)) {
        firstArrival.set(envelope.id, now);
        latencies.push(now - envelope.timestamp);
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    firstArrival,
    latencies,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function registerEndpoint(db: Database, keys: string, accountId: string, url: string): Promise<string> {
  const endpointId = `wh_${randomBytes(8).toString('hex')}`;
  const secrets = createSecretBox(keys);
  await insertWebhookEndpoint(db, {
    endpointId,
    accountId,
    audience: 'account',
    url,
    eventTypes: ['attestation.executing', 'attestation.executed'],
    description: 'bench',
    secret: secrets.seal(endpointId, newWebhookSecret()),
  });
  return endpointId;
}

let nextId = BigInt(Date.now()) * 1_000n;

async function storeAttestation(db: Database, accountId: string, userId: `0x${string}`): Promise<string> {
  const now = Date.now();
  const attestation: NewAttestation = {
    attestationId: String((nextId += 1n)), accountId, userId, symbol: 'AAPLon', chain: CHAIN, side: 'buy', duration: 'short', tokenAmount: '1',
    price: '100', notional: '100', session: 'regular', sessionStartedAt: now - 3_600_000, createdAt: now, expiresAt: now + 3_600_000, userAddress: null,
    assetAddress: `0x${'22'.repeat(20)}`, signature: 's', additionalData: 'a', response: {}, idempotencyKey: null, requestHash: 'h',
  };
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await storeAttestationsAndCommit(client, [{ attestation }]);
  } finally {
    client.release();
  }
  return attestation.attestationId;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
};

async function pendingDeliveries(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'`);
  return rows[0]!.n;
}

async function drained(db: Database, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await pendingDeliveries(db)) > 0) {
    if (Date.now() > deadline) throw new Error(`webhook deliveries still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Queues `events` events of one account in one transaction, on as many resources (or one), and answers deliveries/s. */
async function drainRate(db: Database, accountId: string, events: number, resources: 'many' | 'one'): Promise<number> {
  const started = Date.now();
  await db.query(
    `SELECT webhook_emit('attestation.executed', 'account', $1, 'attestation', CASE WHEN $3 THEN 'serial' ELSE 'drain-' || g END, jsonb_build_object('n', g))
       FROM generate_series(1, $2::int) g`,
    [accountId, events, resources === 'one'],
  );
  await drained(db, 600_000);
  return Math.round((events / (Date.now() - started)) * 1_000);
}

export async function benchWebhooks(databaseUrl: string, options: { seconds: number }): Promise<BenchWebhooksResult> {
  const keys = newWebhookMasterKey();
  const config = defaultConfig({ WEBHOOK_SECRET_KEYS: keys, WEBHOOK_ALLOWED_NETWORKS: ['127.0.0.0/8'], WEBHOOK_ALLOW_HTTP: true });
  const logger = quietLogger();
  const db = createPool(databaseUrl, 10);
  const receiver = await startReceiver();
  const temporal = await startTemporal(config, { logger, inMemory: true });
  const worker = await startWorker({ config, temporal, db, logger, bundleCode: await productBundle() });
  try {
    const accounts = await Promise.all(Array.from({ length: ENDPOINTS }, (_, index) => createAccount(db, `webhook bench ${index}`)));
    for (const account of accounts) await registerEndpoint(db, keys, account.id, receiver.url);

    // 1 000 attestations a minute, each seen at once and final a second later: ~33 events/s over 10 endpoints.
    let block = 1_000_000;
    const finals: Promise<unknown>[] = [];
    const loadStarted = Date.now();
    for (let index = 0; Date.now() - loadStarted < options.seconds * 1_000; index++) {
      const due = loadStarted + index * (1_000 / ATTESTATIONS_PER_SECOND);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
      const account = accounts[index % accounts.length]!;
      const userId = account.userId as `0x${string}`;
      const attestationId = await storeAttestation(db, account.id, userId);
      const seenBlock = (block += 1);
      await recordObservedExecutions(db, CHAIN, [
        {
          txHash: `0x${seenBlock.toString(16).padStart(64, '0')}`, logIndex: 0, blockNumber: seenBlock, blockHash: `0x${seenBlock.toString(16).padStart(64, 'b')}`,
          executionId: String(seenBlock), attestationId, userId, side: 'buy', asset: `0x${'22'.repeat(20)}`, price: '100000000000000000000',
          quantity: '1000000000000000000', executedAt: Date.now(), final: false,
        },
      ]);
      finals.push(new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => promoteFinal(db, CHAIN, seenBlock)));
    }
    await Promise.all(finals);
    await drained(db, 120_000);
    const events = receiver.latencies.length;
    const result = {
      seconds: options.seconds,
      events,
      eventsPerSecond: Math.round((events / (Date.now() - loadStarted)) * 1_000 * 10) / 10,
      p50Ms: quantile(receiver.latencies, 0.5),
      p99Ms: quantile(receiver.latencies, 0.99),
      concurrency: config.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    };
    const one = accounts[0]!.id;
    return {
      ...result,
      drain: { events: DRAIN_EVENTS, perSecond: await drainRate(db, one, DRAIN_EVENTS, 'many') },
      serial: { events: SERIAL_EVENTS, perSecond: await drainRate(db, one, SERIAL_EVENTS, 'one') },
    };
  } finally {
    await worker.stop();
    await temporal.stop();
    await receiver.close();
    await db.end();
  }
}

export function formatWebhooks(result: BenchWebhooksResult): string[] {
  return [
    `Webhooks (the worker part on the in-memory Temporal service, a local receiver answering 204 at once)`,
    `  event → delivered at 1 000 attestations a minute (${result.events} events to ${ENDPOINTS} endpoints in ${result.seconds} s, ${result.eventsPerSecond}/s): p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms (goal p50 ≤ 300 ms, p99 ≤ 1 s)`,
    `  one endpoint, ${result.drain.events} events on as many resources, ${result.concurrency} in flight: ${result.drain.perSecond} deliveries/s`,
    `  one endpoint, ${result.serial.events} events on one resource (one at a time): ${result.serial.perSecond} deliveries/s`,
  ];
}
