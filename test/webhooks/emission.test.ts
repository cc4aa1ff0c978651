/**
 * Webhook events are written by the triggers of migration 020 in the transaction that changes a state, whoever
 * changes it: every writer (test/webhooks/emission-cases.ts) gives exactly the events of the catalogue it should, for
 * the right account or the operators, their `data` in the shape of the resource's answer (what GET
 * /v1/attestations/{id} answers, for an attestation) and valid for the event schemas, queued for the enabled endpoints
 * that listed the type and no other. A rollback (and the batched store's undo) leaves none; without a subscriber
 * nothing is written at all.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PoolClient } from 'pg';
import { WEBHOOK_EVENT_SCHEMAS } from '../../api/v1/webhooks/event-schemas';
import { requestView } from '../../api/v1/tokenization/fields';
import type { Queryable } from '../../db/pool';
import { createAccount } from '../../db/queries/accounts';
import { createApiKey } from '../../db/queries/api-keys';
import { storeAttestationsAndCommit, undoStoreBatch } from '../../db/queries/attestations';
import { listHedgeOrders } from '../../db/queries/hedging';
import { findPartnerRequest } from '../../db/queries/partner-requests';
import { listReservePauses } from '../../db/queries/reserves';
import { setWebhookEndpointState } from '../../db/queries/webhooks';
import { newYorkTime } from '../../domain/calendar';
import { isWebhookEventType, WEBHOOK_EVENT_TYPE_NAMES, WEBHOOK_EVENT_TYPES, webhookEventId, type WebhookEventType } from '../../domain/webhook-events';
import { createTestApi, type TestApi } from '../support/api';
import { ledgerAttestation } from '../support/ledger-attestations';
import { insertTestEndpoint, webhookEventsOf, type StoredWebhookEvent } from '../support/webhooks';
import { EMISSION_CASES, MONDAY_10AM, type EmissionCase, type ExpectedEvent, type Owner, type Prepared } from './emission-cases';

const ACCOUNT_EVENTS = WEBHOOK_EVENT_TYPE_NAMES.filter((type) => WEBHOOK_EVENT_TYPES[type].audience === 'account');

interface Subscription {
  endpointId: string;
  accountId: string;
  operators: boolean;
  events: WebhookEventType[];
  enabled: boolean;
}

let api: TestApi;
let owner: Owner;
let quiet: Owner;
let subscriptions: Subscription[];

async function ownerOf(key: string, accountId: string, offhoursAt: number): Promise<Owner> {
  const { rows } = await api.db.query<{ userId: `0x${string}` }>(`SELECT user_id AS "userId" FROM accounts WHERE id = $1`, [accountId]);
  return { accountId, userId: rows[0]!.userId, key, offhoursAt };
}

async function subscribe(accountId: string, events: WebhookEventType[], enabled = true): Promise<Subscription> {
  const { endpoint } = await insertTestEndpoint(api.db, { accountId, url: 'https://receiver.example/hooks', events });
  if (!enabled) await setWebhookEndpointState(api.db, endpoint.endpointId, { state: 'disabled', by: 'owner', reason: 'not now' });
  return { endpointId: endpoint.endpointId, accountId, operators: endpoint.audience === 'operators', events, enabled };
}

beforeAll(async () => {
  api = await createTestApi();
  const accountOfKey = async (name: string) =>
    (await api.db.query<{ accountId: string }>(`SELECT account_id AS "accountId" FROM api_keys WHERE name = $1`, [name])).rows[0]!.accountId;
  owner = await ownerOf(api.keys.write, await accountOfKey('test write'), newYorkTime('2026-11-21', '12:00'));
  const quietKey = await createApiKey(api.db, { name: 'no subscriber', scope: 'write' });
  quiet = await ownerOf(quietKey.secret, quietKey.key.accountId!, newYorkTime('2026-11-28', '12:00'));
  const stranger = await createAccount(api.db, 'another account');
  subscriptions = [
    await subscribe(owner.accountId, ACCOUNT_EVENTS),
    await subscribe(owner.accountId, ['attestation.executed', 'redemption.pending', 'partner_request.completed']),
    await subscribe(owner.accountId, ACCOUNT_EVENTS, false),
    await subscribe(stranger.id, ACCOUNT_EVENTS),
    // an admin's endpoint: the operators' events, and one of its own account's
    await subscribe(await accountOfKey('test admin'), ['reserves.short', 'reserves.covered', 'review.partner_request', 'review.hedge_order', 'attestation.executed']),
  ];
});
afterAll(() => api?.close());

/** The endpoints an event must be queued for: enabled, listing its type, of its account (or the operators'). */
function subscribersOf(event: ExpectedEvent): string[] {
  const forOperators = WEBHOOK_EVENT_TYPES[event.type].audience === 'operators';
  return subscriptions
    .filter((each) => each.enabled && each.events.includes(event.type) && (forOperators ? each.operators : each.accountId === event.accountId))
    .map((each) => each.endpointId)
    .sort();
}

async function lastSequence(db: Queryable): Promise<bigint> {
  const { rows } = await db.query<{ seq: string }>(`SELECT coalesce(max(seq), 0)::text AS seq FROM webhook_events`);
  return BigInt(rows[0]!.seq);
}

async function eventsAfter(db: Queryable, sequence: bigint): Promise<(StoredWebhookEvent & { timestamp: number })[]> {
  const events = (await webhookEventsOf(db)).filter((event) => BigInt(event.sequence) > sequence);
  const { rows } = await db.query<{ sequence: string; timestamp: number }>(
    `SELECT seq::text AS sequence, floor(extract(epoch FROM occurred_at) * 1000)::float8 AS timestamp FROM webhook_events WHERE seq > $1`,
    [String(sequence)],
  );
  return events.map((event) => ({ ...event, timestamp: rows.find((row) => row.sequence === event.sequence)!.timestamp }));
}

/** What the resource's read route answers now (the writer was its last change), or the pause as it was listed. */
async function answerOf(event: StoredWebhookEvent, prepared: Prepared, by: Owner): Promise<unknown> {
  const { kind, id } = event.resource;
  switch (kind) {
    case 'attestation': {
      api.setNow(undefined);
      const response = await api.http.get(`/v1/attestations/${id}`).set('x-api-key', by.key);
      expect(response.status).toBe(200);
      return response.body;
    }
    case 'redemption': {
      const { rows } = await api.db.query(
        `SELECT redemption_id AS "redemptionId", chain, tx_hash AS "txHash", log_index AS "logIndex", block_number AS "blockNumber", wallet, token, symbol,
                amount::text, usd_notional::text AS "usdNotional", state FROM redemptions WHERE redemption_id = $1`,
        [id],
      );
      return rows[0];
    }
    case 'partner_request':
      return requestView((await findPartnerRequest(api.db, id))!);
    case 'hedge_order':
      return (await listHedgeOrders(api.db, { state: 'review', limit: 1000 })).find((order) => order.clientOrderId === id);
    case 'asset':
      return event.type === 'reserves.short' ? (await listReservePauses(api.db)).find((pause) => pause.symbol === id) : prepared.pauseBefore;
  }
}

const byType = <T extends { type: string }>(events: T[]) => [...events].sort((a, b) => a.type.localeCompare(b.type));
const cases = EMISSION_CASES.map((each): [string, EmissionCase] => [each.name, each]);

describe('with subscribers', () => {
  test.each(cases)('%s', async (_name, writer) => {
    const prepared = await writer.prepare(api, owner);
    if (writer.rollback !== false) {
      const client: PoolClient = await api.db.connect();
      try {
        await client.query('BEGIN');
        const mark = await lastSequence(client);
        await writer.write(client, { ...prepared }, owner, api);
        // written in the transaction, and gone with it
        expect((await eventsAfter(client, mark)).length).toBeGreaterThan(0);
        await client.query('ROLLBACK');
        expect(await eventsAfter(api.db, mark)).toEqual([]);
      } finally {
        client.release();
      }
    }
    const mark = await lastSequence(api.db);
    await writer.write(api.db, prepared, owner, api);
    const events = await eventsAfter(api.db, mark);
    const expected = writer.events(prepared, owner).map((event) => ({
      ...event,
      audience: WEBHOOK_EVENT_TYPES[event.type].audience,
      endpointIds: subscribersOf(event),
    }));
    expect(byType(events.map(({ type, audience, accountId, resource, endpointIds }) => ({ type, audience, accountId, resource, endpointIds })))).toEqual(
      byType(expected),
    );
    for (const event of events) {
      const envelope = { id: webhookEventId(event.sequence), type: event.type, timestamp: event.timestamp, resource: event.resource, sequence: event.sequence, data: event.data };
      expect(WEBHOOK_EVENT_SCHEMAS[event.type].safeParse(envelope).error).toBeUndefined();
      expect(event.data).toEqual(await answerOf(event, prepared, owner));
    }
    const { rows: woken } = await api.db.query<{ endpointId: string }>(`SELECT DISTINCT endpoint_id AS "endpointId" FROM webhook_endpoint_wakeups`);
    for (const endpointId of events.flatMap((event) => event.endpointIds)) expect(woken.map((row) => row.endpointId)).toContain(endpointId);
  });

  test('creating an attestation writes no event', async () => {
    const mark = await lastSequence(api.db);
    await api.tradeAt(MONDAY_10AM);
    expect((await api.http.post('/v1/attestations').set('x-api-key', owner.key).send({ symbol: 'AAPLon', side: 'buy', tokenAmount: '1' })).status).toBe(200);
    expect(await eventsAfter(api.db, mark)).toEqual([]);
  });

  test("a batch the store undoes takes back the expiry of the lapsed attestations it marked, and their events", async () => {
    const lapsedAt = newYorkTime('2026-11-14', '12:00');
    await api.tradeAt(lapsedAt);
    const created = await api.http.post('/v1/attestations').set('x-api-key', owner.key).send({ symbol: 'SPYon', side: 'buy', tokenAmount: '1' });
    expect(created.status).toBe(200);
    const { rows } = await api.db.query<{ started: number }>(`SELECT session_started_at AS started FROM attestations WHERE attestation_id = $1`, [created.body.attestationId]);
    const later = { session: 'offhours', sessionStartedAt: rows[0]!.started, createdAt: lapsedAt + 3_600_000, expiresAt: lapsedAt + 3_660_000 };
    const order = ledgerAttestation(owner.accountId, 'SPYon', '10', later);
    const caps = { global: '1000000', asset: '1000000' };
    const client: PoolClient = await api.db.connect();
    try {
      await client.query('BEGIN');
      const mark = await lastSequence(client);
      // the second order repeats the first's id: the batch fails after the lapse was marked
      await expect(storeAttestationsAndCommit(client, [{ attestation: order, caps }, { attestation: order, caps }])).rejects.toThrow();
      await undoStoreBatch(client);
      expect(await eventsAfter(client, mark)).toEqual([]);
      // alone, as the batched store then stores each order, the lapse is marked and told
      expect(await storeAttestationsAndCommit(client, [{ attestation: order, caps }])).toEqual([true]);
      expect((await eventsAfter(api.db, mark)).map((event) => [event.type, event.resource.id])).toEqual([['attestation.expired', created.body.attestationId]]);
    } finally {
      client.release();
    }
  });
});

describe('without a subscriber', () => {
  beforeAll(async () => {
    const operators = subscriptions.filter((each) => each.operators);
    for (const each of operators) await setWebhookEndpointState(api.db, each.endpointId, { state: 'disabled', by: 'owner', reason: 'not now' });
  });

  test.each(cases)('%s writes nothing', async (_name, writer) => {
    const prepared = await writer.prepare(api, quiet);
    const count = async () => (await api.db.query<{ events: number }>(`SELECT count(*)::int AS events FROM webhook_events`)).rows[0]!.events;
    const before = await count();
    await writer.write(api.db, prepared, quiet, api);
    expect(await count()).toBe(before);
  });
});

test('every event type the migration writes is in the catalogue, states included', async () => {
  const migration = readFileSync(path.join(__dirname, '../../db/migrations/020_webhooks.sql'), 'utf8');
  const literals = [...migration.matchAll(/'((?:attestation|redemption|partner_request|reserves|review)\.[a-z_]+)'/g)].map((match) => match[1]!);
  expect(literals.length).toBeGreaterThan(8);
  expect(literals.filter((type) => !isWebhookEventType(type))).toEqual([]);
  // redemption.<state> and partner_request.<state>: every state the tables allow
  for (const [table, prefix] of [
    ['redemptions', 'redemption.'],
    ['partner_requests', 'partner_request.'],
  ] as const) {
    const { rows } = await api.db.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = $1`,
      [`${table}_state_check`],
    );
    const states = [...rows[0]!.definition.matchAll(/'([a-z_]+)'/g)].map((match) => match[1]!);
    expect(states.length).toBeGreaterThan(5);
    expect(states.map((state) => `${prefix}${state}`).filter((type) => !isWebhookEventType(type))).toEqual([]);
  }
  for (const state of ['executing', 'executed', 'expired']) expect(migration).toContain(`WHEN '${state}' THEN 'attestation.${state}'`);
});
