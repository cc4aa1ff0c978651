/**
 * The redemption workflow's delivery on the real worker against the in-memory service, PostgreSQL for the limits and a
 * recording HTTP server standing in for the broker: a redemption over the session's redemption limit waits for a later
 * session rather than refusing burnt tokens (virtual time crossing the session boundary), and a broker answering 503
 * is retried until it takes the callback, once.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../../activities';
import { recordFixtureDeployments } from '../../harness/fixture-deployments';
import { sessionIntervalAt } from '../../domain/calendar';
import { Decimal } from '../../domain/money';
import { BrokerClient } from '../../partner/broker-client';
import { partnerRequestStateQuery } from '../../temporal/messages';
import { redemptionWorkflowId } from '../../temporal/workflow-ids';
import type { redemptionWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

const withTimeSkipping = process.env.TEMPORAL_ADDRESS ? test.skip : test;

const CLIENT = 'acct-partner-limits';
const USER_ID = `0x${'cd'.repeat(32)}`;
const WALLET = `0x${'77'.repeat(20)}`;

let database: TestDb;
let temporal: ProductTemporal;
let broker: Server;
const callbacks: { issuer_request_id: string; qty: string }[] = [];
/** Redeem callbacks the broker answers 503 before it takes one. */
let unavailableCallbacks = 0;
let callbackAttempts = 0;

/** A broker that takes redeem callbacks and reports each as completed once called back. */
async function startRecordingBroker(): Promise<string> {
  broker = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://broker');
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && url.pathname.endsWith('/tokenization/callback/redeem')) {
        callbackAttempts += 1;
        if (unavailableCallbacks > 0) {
          unavailableCallbacks -= 1;
          res.statusCode = 503;
          res.end(JSON.stringify({ code: 'UNAVAILABLE', message: 'try again' }));
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { issuer_request_id: string; qty: string };
        if (!callbacks.some((call) => call.issuer_request_id === body.issuer_request_id)) callbacks.push(body);
        res.statusCode = 201;
        res.end(JSON.stringify({ status: 'pending' }));
        return;
      }
      const id = url.searchParams.get('issuer_request_id');
      const called = callbacks.some((call) => call.issuer_request_id === id);
      res.end(JSON.stringify(called ? [{ tokenization_request_id: randomBytes(4).toString('hex'), issuer_request_id: id, status: 'completed' }] : []));
    });
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(broker.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  await recordFixtureDeployments(database.db);
  const db = database.db;
  await db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'partner limits test')`, [CLIENT, USER_ID]);
  await db.query(`INSERT INTO partner_clients (client_id, email, partner_account, linked_at) VALUES ($1, 'limits@example.test', 'SBX-LIMITS', now())`, [CLIENT]);
  await db.query(`INSERT INTO account_wallets (chain, address, account_id, state, partner_enabled) VALUES ('ethereum-1', $1, $2, 'registered', true)`, [WALLET, CLIENT]);
  const url = await startRecordingBroker();
  temporal = await startProductTemporal(
    createActivities({ db, broker: new BrokerClient({ url, accountId: 'issuer-account', key: 'issuer', secret: 'secret', timeoutMs: 2_000 }) }),
  );
}, 60_000);

afterAll(async () => {
  await temporal?.teardown();
  await new Promise<void>((resolve) => (broker ? broker.close(() => resolve()) : resolve()));
  await database?.drop();
});

async function serviceNow(): Promise<number> {
  return (await temporal.timeSkipping!.currentTime()).getTime();
}

/** Starts the redemption workflow the watcher would start for a burn of one AAPLon. */
async function burnOneToken(blockTime: number) {
  const txHash = `0x${randomBytes(32).toString('hex')}`;
  const token = (await database.db.query<{ address: string }>(`SELECT address FROM asset_addresses WHERE symbol = 'AAPLon' AND network_chain_id = 'ethereum-1'`)).rows[0]!.address;
  return await temporal.client.workflow.start<typeof redemptionWorkflow>('redemptionWorkflow', {
    workflowId: redemptionWorkflowId(1, txHash, 0),
    taskQueue: temporal.taskQueue,
    args: [{ chain: 'ethereum-1', txHash, logIndex: 0, blockNumber: 1, blockTime, wallet: WALLET, userId: USER_ID, token, amount: (10n ** 18n).toString(), usdNotional: '0' }],
  });
}

const reservation = async (id: string) =>
  (await database.db.query<{ sessionStart: number; state: string }>(`SELECT session_start::float8 AS "sessionStart", state FROM partner_requests WHERE issuer_request_id = $1`, [id])).rows[0];

withTimeSkipping('a redemption over the session limit waits for the next session and is delivered there, once', async () => {
  // Every session's AAPL redemption limit takes one token's shares but not two.
  const price = (await database.db.query<{ price: string }>(`SELECT underlying_price::text AS price FROM latest_prices WHERE symbol = 'AAPLon'`)).rows[0]!.price;
  await database.db.query(`UPDATE partner_session_limits SET limit_usd = $1 WHERE underlying = 'AAPL' AND kind = 'redeem'`, [new Decimal(price).times(1.5).toFixed(2)]);

  const now = await serviceNow();
  const first = await burnOneToken(now);
  await temporal.timeSkipping!.whileUnlocked(() => first.result());
  const firstSession = (await reservation(first.workflowId))!;
  expect(firstSession).toMatchObject({ state: 'completed', sessionStart: sessionIntervalAt(now).start });

  const second = await burnOneToken(now);
  await eventually(async () => expect(await second.query(partnerRequestStateQuery)).toMatchObject({ step: 'waiting_for_limit', state: 'pending' }), 20_000);
  expect((await reservation(second.workflowId))!.sessionStart).toBeNull();
  expect(callbacks.map((call) => call.issuer_request_id)).toEqual([first.workflowId]);

  // Virtual time reaches the end of the session: the second redemption is counted in the next one and delivered.
  const sessionEnd = sessionIntervalAt(now).end;
  await temporal.timeSkipping!.skip(sessionEnd - (await serviceNow()) + 1_000);
  await temporal.timeSkipping!.whileUnlocked(() => second.result());
  expect(await reservation(second.workflowId)).toEqual({ state: 'completed', sessionStart: sessionIntervalAt(sessionEnd).start });
  expect(sessionIntervalAt(sessionEnd).start).toBe(sessionEnd);
  expect(callbacks.map((call) => call.issuer_request_id)).toEqual([first.workflowId, second.workflowId]);
  await recordProductHistory('redemption-delivered', first);
  await recordProductHistory('redemption-over-limit', second);
}, 60_000);

test('a broker answering 503 twice is retried with backoff and takes the callback once', async () => {
  await database.db.query(`UPDATE partner_session_limits SET limit_usd = 1000000000 WHERE underlying = 'AAPL' AND kind = 'redeem'`);
  unavailableCallbacks = 2;
  const attemptsBefore = callbackAttempts;
  const handle = await burnOneToken(Date.now());
  const run = temporal.timeSkipping ? temporal.timeSkipping.whileUnlocked(() => handle.result()) : handle.result();
  expect(await run).toMatchObject({ state: 'completed' });
  expect(callbackAttempts - attemptsBefore).toBe(3);
  expect(callbacks.filter((call) => call.issuer_request_id === handle.workflowId)).toHaveLength(1);
  expect((await reservation(handle.workflowId))!.state).toBe('completed');
}, 60_000);
