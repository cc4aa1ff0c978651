/**
 * The webhook queue in SQL (db/queries/webhooks.ts): claims take only the oldest pending delivery of each resource,
 * leased with an attempt opened; a lease that ran out closes its attempt `interrupted`; recorded attempts keep the
 * endpoint's failure record and disable it; replays, wake-ups, endpoint states, listing pages and pruning.
 */
import type { PoolClient } from 'pg';
import {
  claimDueWebhookDeliveries,
  endpointsWithPendingDeliveries,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookDeliveries,
  nextWebhookDueAt,
  pruneWebhookHistory,
  recordWebhookAttempt,
  replayWebhookDelivery,
  setWebhookEndpointState,
  takeWebhookWakeups,
} from '../../db/queries/webhooks';
import { inTransaction } from '../../db/pool';
import { createAccount } from '../../db/queries/accounts';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { insertTestEndpoint, testEndpointId, type TestEndpoint } from '../support/webhooks';

const ACCOUNT = 'acct-webhook-queue';
const URL = 'https://receiver.example/hooks';
const LEASE = { limit: 100, leaseMs: 60_000 };

let database: TestDb;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, $1)`, [ACCOUNT, `0x${'51'.repeat(32)}`]);
});
afterAll(async () => {
  await database?.drop();
});

/** The account of the test's endpoint: each test has its own, so events of one test reach none of another's endpoints. */
let account = ACCOUNT;

/** An endpoint of a new account wanting redemption events, its wake-ups drained. */
async function freshEndpoint(): Promise<TestEndpoint> {
  account = (await createAccount(database.db, 'webhook queue')).id;
  const endpoint = await insertTestEndpoint(database.db, { accountId: account, url: URL, events: ['redemption.pending', 'redemption.completed'] });
  await drainWakeups();
  return endpoint;
}

async function drainWakeups(): Promise<string[]> {
  return inTransaction(database.db, (client: PoolClient) => takeWebhookWakeups(client, 100));
}

/** An event of the resource `redemption:<id>`, written by the triggers' own function. */
async function emit(id: string, type = 'redemption.pending'): Promise<void> {
  await database.db.query(`SELECT webhook_emit($1, 'account', $2, 'redemption', $3, jsonb_build_object('redemptionId', $3::text))`, [type, account, id]);
}

const claim = (endpoint: TestEndpoint, options = LEASE) => claimDueWebhookDeliveries(database.db, endpoint.endpoint.endpointId, options);
const resources = (claimed: { envelope: { resource: { id: string }; type: string } }[]) => claimed.map((delivery) => delivery.envelope.resource.id);

function outcome(deliveryId: string, attempt: number, result: 'delivered' | 'failed', nextAttemptAt: number | null = null) {
  return {
    deliveryId,
    attempt,
    outcome: result,
    status: result === 'delivered' ? 200 : 500,
    error: null,
    responseExcerpt: null,
    address: '203.0.113.7',
    durationMs: 12,
    nextAttemptAt,
  } as const;
}

test('a claim takes the oldest pending delivery of each resource, once, and the next only after it is recorded', async () => {
  const endpoint = await freshEndpoint();
  for (const id of ['a', 'b', 'a', 'c', 'a', 'b']) await emit(id);

  const first = await claim(endpoint);
  expect(resources(first)).toEqual(['a', 'b', 'c']);
  expect(first.map((delivery) => delivery.attempt)).toEqual([1, 1, 1]);
  const [a1, b1, c1] = first;
  expect(a1!.envelope).toEqual({
    id: `evt_${a1!.envelope.sequence}`,
    type: 'redemption.pending',
    timestamp: expect.any(Number),
    resource: { kind: 'redemption', id: 'a' },
    sequence: expect.stringMatching(/^\d+$/),
    data: { redemptionId: 'a' },
  });
  // leased, and the rest of each resource waits behind its head
  expect(await claim(endpoint)).toEqual([]);

  await recordWebhookAttempt(database.db, outcome(a1!.deliveryId, 1, 'delivered'));
  await recordWebhookAttempt(database.db, outcome(b1!.deliveryId, 1, 'failed', Date.now() + 3_600_000));
  await recordWebhookAttempt(database.db, outcome(c1!.deliveryId, 1, 'delivered'));
  // a's second event is due; b's head waits an hour for its retry and holds b's next event behind it
  const second = await claim(endpoint);
  expect(resources(second)).toEqual(['a']);
  expect(BigInt(second[0]!.envelope.sequence)).toBeGreaterThan(BigInt(a1!.envelope.sequence));
  await recordWebhookAttempt(database.db, outcome(second[0]!.deliveryId, 1, 'delivered'));
  const third = await claim(endpoint);
  expect(resources(third)).toEqual(['a']);
  await recordWebhookAttempt(database.db, outcome(third[0]!.deliveryId, 1, 'delivered'));
  // all that is left is b's head, due in an hour, and b's next event behind it
  expect(await claim(endpoint)).toEqual([]);
  expect(await nextWebhookDueAt(database.db, endpoint.endpoint.endpointId)).toBeGreaterThan(Date.now() + 3_000_000);
});

test('a lease that ran out closes its attempt interrupted, and the delivery is claimed again as the next attempt', async () => {
  const endpoint = await freshEndpoint();
  await emit('lost');
  const [first] = await claim(endpoint, { limit: 10, leaseMs: 0 });
  const [again] = await claim(endpoint);
  expect(again).toMatchObject({ deliveryId: first!.deliveryId, attempt: 2, envelope: first!.envelope });
  await recordWebhookAttempt(database.db, outcome(again!.deliveryId, 2, 'delivered'));

  const [listed] = await listWebhookDeliveries(database.db, endpoint.endpoint.endpointId, { limit: 10 });
  expect(listed).toMatchObject({ deliveryId: first!.deliveryId, state: 'delivered', nextAttemptAt: null, deliveredAt: expect.any(Number) });
  expect(listed!.attempts.map(({ attempt, outcome: result, status }) => ({ attempt, result, status }))).toEqual([
    { attempt: 1, result: 'interrupted', status: null },
    { attempt: 2, result: 'delivered', status: 200 },
  ]);
});

test('failures keep the endpoint failing since the first; a success clears it; a disable cancels what is pending', async () => {
  const endpoint = await freshEndpoint();
  const id = endpoint.endpoint.endpointId;
  await emit('r1');
  await emit('r2');
  const [r1, r2] = await claim(endpoint);
  await recordWebhookAttempt(database.db, outcome(r1!.deliveryId, 1, 'failed', Date.now()));
  const failing = await findWebhookEndpoint(database.db, 'any', id);
  expect(failing).toMatchObject({ state: 'enabled', failingSince: expect.any(Number), lastFailure: 'HTTP 500' });
  await recordWebhookAttempt(database.db, { ...outcome(r2!.deliveryId, 1, 'failed', Date.now() + 3_600_000), status: null, error: 'connect ECONNREFUSED' });
  expect(await findWebhookEndpoint(database.db, 'any', id)).toMatchObject({ failingSince: failing!.failingSince, lastFailure: 'connect ECONNREFUSED' });

  const [r1again, ...none] = await claim(endpoint);
  expect(none).toEqual([]);
  await recordWebhookAttempt(database.db, outcome(r1again!.deliveryId, 2, 'delivered'));
  expect(await findWebhookEndpoint(database.db, 'any', id)).toMatchObject({ failingSince: null, lastSuccessAt: expect.any(Number) });

  await emit('r3');
  const claimed = await claim(endpoint);
  expect(resources(claimed)).toEqual(['r3']);
  await recordWebhookAttempt(database.db, { ...outcome(claimed[0]!.deliveryId, 1, 'failed', Date.now()), disable: { by: 'failures', reason: 'failing since then: HTTP 500' } });
  expect(await findWebhookEndpoint(database.db, 'any', id)).toMatchObject({
    state: 'disabled',
    disabledBy: 'failures',
    disabledReason: 'failing since then: HTTP 500',
    disabledAt: expect.any(Number),
  });
  const states = (await listWebhookDeliveries(database.db, id, { limit: 10 })).map((delivery) => [delivery.event.resource.id, delivery.state]);
  expect(states).toEqual([
    ['r3', 'cancelled'],
    ['r2', 'cancelled'],
    ['r1', 'delivered'],
  ]);
  expect(await endpointsWithPendingDeliveries(database.db)).not.toContain(id);
  // no delivery is queued for a disabled endpoint
  await emit('r4');
  expect(await listWebhookDeliveries(database.db, id, { limit: 10 })).toHaveLength(3);

  // enabled again: the failure record is cleared and the worker woken; cancelled deliveries stay cancelled (replayable)
  await setWebhookEndpointState(database.db, id, { state: 'enabled' });
  expect(await findWebhookEndpoint(database.db, 'any', id)).toMatchObject({ state: 'enabled', disabledBy: null, disabledReason: null, failingSince: null });
  expect(await drainWakeups()).toEqual([id]);
  expect(await claim(endpoint)).toEqual([]);
  const replayed = await replayWebhookDelivery(database.db, id, claimed[0]!.deliveryId);
  expect(replayed).toMatchObject({ state: 'pending', event: { id: claimed[0]!.envelope.id } });
  expect(await drainWakeups()).toEqual([id]);
  expect(await claim(endpoint)).toMatchObject([{ deliveryId: claimed[0]!.deliveryId, attempt: 2, envelope: { id: claimed[0]!.envelope.id } }]);
});

test('the owner disabling an endpoint cancels its pending deliveries, and a replay needs the endpoint to hold the delivery', async () => {
  const endpoint = await freshEndpoint();
  const id = endpoint.endpoint.endpointId;
  await emit('d1');
  await setWebhookEndpointState(database.db, id, { state: 'disabled', by: 'owner', reason: 'paused by its owner' });
  const [delivery] = await listWebhookDeliveries(database.db, id, { limit: 10 });
  expect(delivery).toMatchObject({ state: 'cancelled', nextAttemptAt: null });
  const other = await freshEndpoint();
  expect(await replayWebhookDelivery(database.db, other.endpoint.endpointId, delivery!.deliveryId)).toBeUndefined();
});

test('a wake-up is taken only once its transaction committed, one per endpoint however many transactions wrote it', async () => {
  const endpoint = await freshEndpoint();
  await emit('w1');
  await emit('w2');
  const open = await database.db.connect();
  try {
    await open.query('BEGIN');
    await open.query(`SELECT webhook_emit('redemption.completed', 'account', $1, 'redemption', 'w3', '{}'::jsonb)`, [account]);
    expect(await drainWakeups()).toEqual([endpoint.endpoint.endpointId]);
    expect(await drainWakeups()).toEqual([]);
    await open.query('COMMIT');
  } finally {
    open.release();
  }
  expect(await drainWakeups()).toEqual([endpoint.endpoint.endpointId]);
});

test('deliveries list newest first, by keyset and state', async () => {
  const endpoint = await freshEndpoint();
  for (const id of ['k1', 'k2', 'k3', 'k4', 'k5']) await emit(id);
  const [k1] = await claim(endpoint);
  await recordWebhookAttempt(database.db, outcome(k1!.deliveryId, 1, 'delivered'));
  const id = endpoint.endpoint.endpointId;
  const page1 = await listWebhookDeliveries(database.db, id, { limit: 2 });
  const page2 = await listWebhookDeliveries(database.db, id, { limit: 2, after: page1[1]!.deliveryId });
  const page3 = await listWebhookDeliveries(database.db, id, { limit: 2, after: page2[1]!.deliveryId });
  expect([...page1, ...page2, ...page3].map((delivery) => delivery.event.resource.id)).toEqual(['k5', 'k4', 'k3', 'k2', 'k1']);
  expect((await listWebhookDeliveries(database.db, id, { limit: 10, state: 'delivered' })).map((delivery) => delivery.deliveryId)).toEqual([k1!.deliveryId]);
  expect(page3[0]!.attempts).toEqual([
    { attempt: 1, startedAt: expect.any(Number), finishedAt: expect.any(Number), outcome: 'delivered', status: 200, error: null, durationMs: 12 },
  ]);
});

test('pruning drops finished deliveries and the events none needs any more, never a pending one', async () => {
  const endpoint = await freshEndpoint();
  const second = await insertTestEndpoint(database.db, { accountId: account, url: URL, events: ['redemption.pending'] });
  await emit('p1');
  const claimed = await claim(endpoint);
  const p1 = claimed.find((delivery) => delivery.envelope.resource.id === 'p1')!;
  await recordWebhookAttempt(database.db, outcome(p1.deliveryId, 1, 'delivered'));
  const counts = async () =>
    (
      await database.db.query<{ deliveries: number; events: number }>(
        `SELECT (SELECT count(*) FROM webhook_deliveries WHERE event_seq = $1)::int AS deliveries, (SELECT count(*) FROM webhook_events WHERE seq = $1)::int AS events`,
        [p1.envelope.sequence],
      )
    ).rows[0];
  expect(await pruneWebhookHistory(database.db, Date.now() - 60_000)).toEqual({ deliveries: 0, events: 0 });
  const pruned = await pruneWebhookHistory(database.db, Date.now() + 60_000);
  expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
  // the second endpoint's delivery of that event is still pending: the event stays
  expect(await counts()).toEqual({ deliveries: 1, events: 1 });
  await setWebhookEndpointState(database.db, second.endpoint.endpointId, { state: 'disabled', by: 'owner', reason: 'done' });
  await pruneWebhookHistory(database.db, Date.now() + 60_000);
  expect(await counts()).toEqual({ deliveries: 0, events: 0 });
});

test('an idempotency key answers the endpoint it created', async () => {
  const first = await insertTestEndpoint(database.db, { accountId: ACCOUNT, url: URL, events: ['redemption.pending'] });
  const again = await insertWebhookEndpoint(database.db, {
    endpointId: testEndpointId(),
    accountId: ACCOUNT,
    audience: 'account',
    url: URL,
    eventTypes: ['redemption.pending'],
    description: null,
    secret: first.endpoint.secret,
    idempotencyKey: 'key-1',
    requestHash: 'hash-1',
  });
  expect(again.created).toBe(true);
  const replay = await insertWebhookEndpoint(database.db, { ...again.endpoint, endpointId: testEndpointId(), idempotencyKey: 'key-1', requestHash: 'hash-1' });
  expect(replay).toEqual({ created: false, endpoint: again.endpoint });
  expect(again.endpoint).toMatchObject({ idempotencyKey: 'key-1', requestHash: 'hash-1', previousSecret: null, secret: first.endpoint.secret });
});
