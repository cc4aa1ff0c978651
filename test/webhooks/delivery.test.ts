/**
 * Webhook delivery end to end on the worker side: events written by real SQL transitions (attestations seen executing
 * on a chain, then final), the wake-up loop, `webhookEndpointWorkflow` on a real SDK worker with the product's
 * activities, and a receiver on 127.0.0.1 that verifies every signature. A receiver that fails, then hangs past the
 * timeout, then answers gets every event, once after dedup by webhook-id, in order per resource, each attempt
 * recorded; Retry-After delays the next attempt; 410 disables at once; an endpoint failing too long is disabled with
 * its reason, and enabling it resumes; an internal address is refused at delivery; a replay sends the same webhook-id again; a deleted endpoint's workflow ends.
 */
import pino from 'pino';
import { createActivities } from '../../activities';
import type { WebhookDelivery } from '../../activities/webhooks';
import { createAccount } from '../../db/queries/accounts';
import { promoteFinal, recordObservedExecutions } from '../../db/queries/chain-observations';
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  listWebhookDeliveries,
  replayWebhookDelivery,
  setWebhookEndpointState,
  type WebhookDeliveryRecord,
} from '../../db/queries/webhooks';
import { webhookEndpointWorkflowId } from '../../temporal/workflow-ids';
import { testConfig } from '../../harness/settings';
import { webhookAttempts, webhookDeliverySeconds } from '../../metrics/metrics';
import { createProcessMetrics } from '../../metrics/process-metrics';
import { createSecretBox } from '../../webhooks/secret-box';
import { createWebhookAgents } from '../../webhooks/send';
import { runWebhookWakeups, wakeWebhookEndpoint } from '../../webhooks/wakeups';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { storeLedgerAttestation } from '../support/ledger-attestations';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';
import { startTestReceiver, type ReceiverAnswer, type TestReceiver } from '../support/webhook-receiver';
import { insertTestEndpoint, type TestEndpoint } from '../support/webhooks';

jest.setTimeout(120_000);

const CHAIN = 'ethereum-1';
const config = testConfig();
const hex = (digits: string, bytes: number) => `0x${digits.repeat(bytes)}` as `0x${string}`;

let database: TestDb;
let temporal: ProductTemporal;
let wakeups: { stop(): Promise<void> };
let delivery: WebhookDelivery;
const receivers: TestReceiver[] = [];
let block = 10_000;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  delivery = {
    secrets: createSecretBox(config.WEBHOOK_SECRET_KEYS!),
    policy: { allowedNetworks: config.WEBHOOK_ALLOWED_NETWORKS, allowHttp: config.WEBHOOK_ALLOW_HTTP },
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterMs: 60_000,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    agents: createWebhookAgents(config.WEBHOOK_CONCURRENCY_PER_ENDPOINT),
  };
  temporal = await startProductTemporal(createActivities({ db: database.db, webhooks: { delivery } }));
  wakeups = runWebhookWakeups({ db: database.db, client: temporal.client, taskQueue: temporal.taskQueue, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await wakeups?.stop();
  await temporal?.teardown();
  delivery?.agents.http.destroy();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await database?.drop();
});

/** An account with an endpoint on a new receiver answering as `answer` says, for the attestation events. */
async function endpointReceiving(answer: Parameters<typeof startTestReceiver>[1]): Promise<{ endpoint: TestEndpoint; receiver: TestReceiver; accountId: string; userId: `0x${string}` }> {
  const account = await createAccount(database.db, 'webhook delivery');
  let secret = '';
  const receiver = await startTestReceiver(() => secret, answer);
  receivers.push(receiver);
  const endpoint = await insertTestEndpoint(database.db, {
    accountId: account.id,
    url: receiver.url,
    events: ['attestation.executing', 'attestation.executed', 'attestation.expired'],
    masterKeys: config.WEBHOOK_SECRET_KEYS,
  });
  secret = endpoint.secret;
  return { endpoint, receiver, accountId: account.id, userId: account.userId as `0x${string}` };
}

/** Stores `count` attestations of the account, and records each seen on the chain (`attestation.executing`). */
async function executing(accountId: string, userId: `0x${string}`, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) ids.push(await storeLedgerAttestation(database.db, accountId, 'AAPLon', '100', { userId }));
  block += 1;
  await recordObservedExecutions(
    database.db,
    CHAIN,
    ids.map((attestationId, index) => ({
      txHash: hex((block * 100 + index).toString(16).padStart(4, '0'), 16), logIndex: index, blockNumber: block, blockHash: hex(block.toString(16).padStart(4, '0'), 16),
      executionId: String(block * 100 + index), attestationId, userId, side: 'buy' as const, asset: hex('22', 20), price: '100000000000000000000',
      quantity: '1000000000000000000', executedAt: Date.now(), final: false,
    })),
  );
  return ids;
}

/** The chain final up to now: the executions seen become `attestation.executed`. */
const final = () => promoteFinal(database.db, CHAIN, block);

async function deliveries(endpoint: TestEndpoint): Promise<WebhookDeliveryRecord[]> {
  return listWebhookDeliveries(database.db, endpoint.endpoint.endpointId, { limit: 100 });
}

test('a receiver that fails, then hangs past the timeout, then answers gets every event once after dedup, in order per resource', async () => {
  const counted = async () => {
    const attempts = Object.fromEntries((await webhookAttempts.get()).values.map((value) => [value.labels.outcome, value.value]));
    const seconds = (await webhookDeliverySeconds.get()).values.find((value) => value.metricName === 'issuer_webhook_delivery_seconds_count');
    return { delivered: attempts.delivered ?? 0, failed: attempts.failed ?? 0, observed: seconds?.value ?? 0 };
  };
  const before = await counted();
  const script: ReceiverAnswer[] = [{ status: 500 }, 'hang', { status: 200 }];
  const { endpoint, receiver, accountId, userId } = await endpointReceiving((arrival) => script[arrival.attempt - 1] ?? { status: 200 });
  const ids = await executing(accountId, userId, 3);
  await final();

  const all = await eventually(async () => {
    const listed = await deliveries(endpoint);
    expect(listed).toHaveLength(6);
    expect(listed.map((each) => each.state)).toEqual(Array(6).fill('delivered'));
    return listed;
  }, 60_000);

  expect(receiver.arrivals.every((arrival) => arrival.verified)).toBe(true);
  expect(receiver.accepted().sort()).toEqual(all.map((each) => each.event.id).sort());
  for (const attestationId of ids) {
    const events = all.filter((each) => each.event.resource.id === attestationId).sort((a, b) => Number(a.deliveryId) - Number(b.deliveryId));
    expect(events.map((each) => each.event.type)).toEqual(['attestation.executing', 'attestation.executed']);
    const [first, second] = events.map((each) => receiver.arrivals.filter((arrival) => arrival.id === each.event.id));
    // The resource's second event arrived only once its first was accepted.
    const accepted = first!.find((arrival) => arrival.acceptedAt !== null)!;
    expect(second![0]!.arrivedAt).toBeGreaterThanOrEqual(accepted.acceptedAt!);
    expect(second![0]!.envelope).toMatchObject({ type: 'attestation.executed', resource: { kind: 'attestation', id: attestationId } });
    for (const each of events) {
      expect(each.attempts.map((attempt) => [attempt.outcome, attempt.status])).toEqual([
        ['failed', 500],
        ['failed', null],
        ['delivered', 200],
      ]);
      expect(each.attempts[1]!.error).toMatch(/no answer within 2000 ms/);
    }
  }
  expect((await findWebhookEndpoint(database.db, 'any', endpoint.endpoint.endpointId))).toMatchObject({ state: 'enabled', failingSince: null });
  // The worker runs in this process: its metrics counted every attempt, and the delivery time of each event.
  expect(await counted()).toEqual({ delivered: before.delivered + 6, failed: before.failed + 12, observed: before.observed + 6 });
  receiver.release();
});

test('429 with Retry-After delays the next attempt by at least that long', async () => {
  const { endpoint, receiver, accountId, userId } = await endpointReceiving((arrival) =>
    arrival.attempt === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 },
  );
  await executing(accountId, userId, 1);
  await eventually(async () => expect((await deliveries(endpoint)).map((each) => each.state)).toEqual(['delivered']), 30_000);
  const [first, second] = receiver.arrivals;
  // The schedule alone would retry after 200 ms ±20 %.
  expect(second!.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(1_000);
  expect((await deliveries(endpoint))[0]!.attempts.map((attempt) => attempt.status)).toEqual([429, 204]);

  // Deleted, the endpoint's workflow ends at its next round.
  const endpointId = endpoint.endpoint.endpointId;
  expect(await deleteWebhookEndpoint(database.db, { accountId, operators: false }, endpointId)).toBe(true);
  await wakeWebhookEndpoint(temporal.client, temporal.taskQueue, endpointId);
  const handle = temporal.client.workflow.getHandle(webhookEndpointWorkflowId(endpointId));
  await eventually(async () => expect((await handle.describe()).status.name).toBe('COMPLETED'), 30_000);
  await recordProductHistory('webhook-endpoint-retried-deleted', handle);
});

test('410 Gone disables the endpoint at once, its pending deliveries cancelled', async () => {
  const { endpoint, receiver, accountId, userId } = await endpointReceiving(() => ({ status: 410 }));
  await executing(accountId, userId, 2);
  await eventually(async () => expect(await findWebhookEndpoint(database.db, 'any', endpoint.endpoint.endpointId)).toMatchObject({ state: 'disabled', disabledBy: 'gone' }), 30_000);
  await eventually(async () => expect((await deliveries(endpoint)).map((each) => each.state).sort()).toEqual(['cancelled', 'cancelled']));
  expect(receiver.arrivals.length).toBeLessThanOrEqual(2);
  expect(receiver.arrivals.every((arrival) => arrival.attempt === 1)).toBe(true);
  // A scrape shows it among the endpoints disabled as gone.
  const scraped = await createProcessMetrics({ role: 'worker', db: database.db, poolMax: 10 }).getSingleMetricAsString('issuer_webhook_endpoints');
  expect(scraped).toMatch(/^issuer_webhook_endpoints\{state="disabled",disabled_by="gone"\} 1$/m);
});

test('an endpoint failing longer than WEBHOOK_DISABLE_AFTER_MS is disabled with its reason; enabled again, it resumes', async () => {
  delivery.disableAfterMs = 1_500;
  let healthy = false;
  const { endpoint, receiver, accountId, userId } = await endpointReceiving(() => ({ status: healthy ? 200 : 503 }));
  const endpointId = endpoint.endpoint.endpointId;
  try {
    await executing(accountId, userId, 1);
    // Its retries (200 ms, 500 ms, 1 s, 2 s apart) outlast 1.5 s of failing: the attempt after that disables.
    const disabled = await eventually(async () => {
      const record = await findWebhookEndpoint(database.db, 'any', endpointId);
      expect(record).toMatchObject({ state: 'disabled', disabledBy: 'failures' });
      return record!;
    }, 30_000);
    expect(disabled.disabledReason).toMatch(/^failing since \d{4}-\d\d-\d\dT[\d:.]+Z: HTTP 503$/);
    const [cancelled] = await deliveries(endpoint);
    expect(cancelled).toMatchObject({ state: 'cancelled' });
    expect(cancelled!.attempts.length).toBeGreaterThanOrEqual(2);
    expect(cancelled!.attempts.every((attempt) => attempt.status === 503)).toBe(true);
    const arrivalsWhileDisabled = receiver.arrivals.length;
    await final();
    expect((await deliveries(endpoint)).map((each) => each.state)).toEqual(['cancelled']);

    healthy = true;
    await setWebhookEndpointState(database.db, endpointId, { state: 'enabled' });
    await replayWebhookDelivery(database.db, endpointId, cancelled!.deliveryId);
    await executing(accountId, userId, 1);
    await eventually(async () => expect((await deliveries(endpoint)).map((each) => each.state)).toEqual(['delivered', 'delivered']), 30_000);
    expect(receiver.arrivals.length).toBeGreaterThan(arrivalsWhileDisabled);
    expect(receiver.accepted()).toContain(cancelled!.event.id);
    expect(await findWebhookEndpoint(database.db, 'any', endpointId)).toMatchObject({ state: 'enabled', failingSince: null, disabledBy: null });
  } finally {
    delivery.disableAfterMs = 60_000;
  }
});

test('an endpoint whose host is now an internal address is refused at delivery, no connection made', async () => {
  const account = await createAccount(database.db, 'webhook delivery refused');
  // As if its name had resolved publicly at registration and to 10.255.255.1 since (the worker allows only 127/8 and ::1).
  const endpoint = await insertTestEndpoint(database.db, {
    accountId: account.id,
    url: 'http://10.255.255.1:9/hooks',
    events: ['attestation.executing'],
    masterKeys: config.WEBHOOK_SECRET_KEYS,
  });
  await executing(account.id, account.userId as `0x${string}`, 1);
  const [refused] = await eventually(async () => {
    const listed = await deliveries(endpoint);
    expect(listed[0]?.attempts[0]?.outcome).toBe('refused');
    return listed;
  }, 30_000);
  expect(refused!.attempts[0]).toMatchObject({ status: null, error: expect.stringContaining('10.255.255.1 is not a public address') });
  expect(refused!.state).toBe('pending');
  await setWebhookEndpointState(database.db, endpoint.endpoint.endpointId, { state: 'disabled', by: 'owner', reason: 'test over' });
});

test('a replayed delivery is sent again with the same webhook-id and body', async () => {
  const { endpoint, receiver, accountId, userId } = await endpointReceiving(() => ({ status: 200 }));
  await executing(accountId, userId, 1);
  const [delivered] = await eventually(async () => {
    const listed = await deliveries(endpoint);
    expect(listed.map((each) => each.state)).toEqual(['delivered']);
    return listed;
  }, 30_000);
  await replayWebhookDelivery(database.db, endpoint.endpoint.endpointId, delivered!.deliveryId);
  await eventually(async () => expect(receiver.arrivals).toHaveLength(2), 30_000);
  const [first, again] = receiver.arrivals;
  expect(again!.id).toBe(first!.id);
  expect(again!.envelope).toEqual(first!.envelope);
  expect(again!.verified).toBe(true);
  await eventually(async () => expect((await deliveries(endpoint))[0]).toMatchObject({ state: 'delivered', attempts: [{ outcome: 'delivered' }, { outcome: 'delivered' }] }));
});
