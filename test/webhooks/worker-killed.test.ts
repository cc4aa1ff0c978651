/**
 * A worker killed mid-delivery: the product's worker runs as its own OS process (`npm run worker`) on a durable
 * Temporal service of its own, and is SIGKILLed while the receiver holds a webhook request open. A second worker
 * takes the endpoint's round over once the first's heartbeat is missed; the claimed delivery's lease runs out, its
 * attempt is closed `interrupted`, and it is sent again. The receiver sees that webhook-id twice raw and once after
 * dedup, and every event of the endpoint is delivered: nothing lost. Every process is stopped by its pid.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../config/free-port';
import { createAccount } from '../../db/queries/accounts';
import { recordObservedExecutions } from '../../db/queries/chain-observations';
import { listWebhookDeliveries, type WebhookDeliveryRecord } from '../../db/queries/webhooks';
import { roleEnv, startProcess, type TestProcess } from '../../harness/processes';
import { productBundle } from '../../harness/workflow-bundle';
import { newWebhookMasterKey } from '../../webhooks/secret-box';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually } from '../support/eventually';
import { storeLedgerAttestation } from '../support/ledger-attestations';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { insertTestEndpoint, type TestEndpoint } from '../support/webhooks';

jest.setTimeout(240_000);

const MASTER_KEYS = newWebhookMasterKey();
const started: TestProcess[] = [];
let database: TestDb;
let receiver: TestReceiver;
let workerEnv: NodeJS.ProcessEnv;
let endpoint: TestEndpoint;
/** The first request that arrives is held open: the worker sending it is killed meanwhile. */
let held: string | undefined;

function launch(name: string, entry: string, args: string[], env: NodeJS.ProcessEnv): TestProcess {
  const child = startProcess(name, entry, args, env);
  started.push(child);
  return child;
}

async function startWorkerProcess(name: string): Promise<TestProcess> {
  const worker = launch(name, 'start/worker-main.ts', [], { ...workerEnv, METRICS_PORT: String(await freePort()) });
  await worker.waitFor(/"msg":"worker polling"/, 120_000);
  return worker;
}

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  const scratch = mkdtempSync(path.join(tmpdir(), 'issuer-webhook-killed-'));
  const bundlePath = path.join(scratch, 'workflow-bundle.js');
  writeFileSync(bundlePath, await productBundle());
  const temporalPort = await freePort();
  const temporal = launch('temporal', 'temporal-server/main.ts', ['--port', String(temporalPort), '--database-url', database.url], roleEnv());
  await temporal.waitFor(/Durable Temporal listening/);
  workerEnv = {
    ...roleEnv(),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_TASK_QUEUE: `issuer-webhook-killed-${process.pid}`,
    WORKFLOW_BUNDLE_PATH: bundlePath,
    WEBHOOK_SECRET_KEYS: MASTER_KEYS,
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,2s',
    // The lease of a claimed delivery is this plus 10 s: the time before the second worker sends it again.
    WEBHOOK_TIMEOUT_MS: '5000',
  };
  let secret = '';
  receiver = await startTestReceiver(
    () => secret,
    (arrival) => {
      if (held === undefined) held = arrival.id;
      return held === arrival.id && arrival.attempt === 1 ? 'hang' : { status: 200 };
    },
  );
  const account = await createAccount(database.db, 'webhook worker killed');
  endpoint = await insertTestEndpoint(database.db, { accountId: account.id, url: receiver.url, events: ['attestation.executing'], masterKeys: MASTER_KEYS });
  secret = endpoint.secret;
  const userId = account.userId as `0x${string}`;
  const ids: string[] = [];
  for (let index = 0; index < 4; index++) {
    ids.push(await storeLedgerAttestation(database.db, account.id, 'AAPLon', '100', { userId, expiresAt: Date.now() + 3_600_000 }));
  }
  await recordObservedExecutions(
    database.db,
    'ethereum-1',
    ids.map((attestationId, index) => ({
      txHash: `0x${String(index + 1).repeat(64)}`, logIndex: index, blockNumber: 20_000, blockHash: `0x${'ab'.repeat(32)}`, executionId: String(20_000 + index),
      attestationId, userId, side: 'buy' as const, asset: `0x${'22'.repeat(20)}`, price: '100000000000000000000', quantity: '1000000000000000000',
      executedAt: Date.now(), final: false,
    })),
  );
}, 240_000);

afterAll(async () => {
  await Promise.all(started.filter((child) => child.name !== 'temporal').map((child) => child.stop()));
  await Promise.all(started.map((child) => child.stop()));
  await receiver?.close();
  await database?.drop();
}, 120_000);

function roleOutput(): string {
  return started.map((child) => `--- ${child.name}\n${child.output().slice(-3_000)}`).join('\n');
}

test('the worker killed while a receiver holds its request open: a second worker sends it again, delivered once after dedup, nothing lost', async () => {
  const first = await startWorkerProcess('worker-1');
  await eventually(async () => expect(held).toBeDefined(), 60_000);
  await first.kill();
  expect(await first.exited).toBe('SIGKILL');
  await startWorkerProcess('worker-2');

  let deliveries: WebhookDeliveryRecord[] = [];
  try {
    deliveries = await eventually(async () => {
      const listed = await listWebhookDeliveries(database.db, endpoint.endpoint.endpointId, { limit: 10 });
      expect(listed.map((each) => each.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
      return listed;
    }, 120_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${roleOutput()}`);
  }
  const eventIds = deliveries.map((each) => each.event.id).sort();
  expect(receiver.accepted().sort()).toEqual(eventIds);
  expect(receiver.arrivals.every((arrival) => arrival.verified)).toBe(true);
  const heldArrivals = receiver.arrivals.filter((arrival) => arrival.id === held);
  expect(heldArrivals.map((arrival) => arrival.acceptedAt !== null)).toEqual([false, true]);
  const heldDelivery = deliveries.find((each) => each.event.id === held)!;
  expect(heldDelivery.attempts.map((attempt) => attempt.outcome)).toEqual(['interrupted', 'delivered']);
  // Any other request worker-1 had in flight when it died was answered but not recorded: sent again, never lost.
  for (const delivery of deliveries) {
    const outcomes = delivery.attempts.map((attempt) => attempt.outcome);
    expect(outcomes.at(-1)).toBe('delivered');
    expect(outcomes.slice(0, -1).every((outcome) => outcome === 'interrupted')).toBe(true);
  }
});
