/**
 * The campaign's liveness check (invariant 6, campaign/liveness.ts) on the product's partner mint workflow, run by a
 * real worker with the product's activities, its broker a real HTTP server answering each request's callback as the
 * test says: a mint called back and completed is fine; one whose callback the broker keeps failing (500) is stuck, its
 * activity named with its attempts and last failure; one the broker keeps refusing (422) waits in `needs_review` for
 * an operator, which is fine, with the reason the operator reads; one started while no worker runs is stuck, its
 * workflow task taken by no one; one whose workflow task a worker is running (nothing else pending) is at work.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../../activities';
import { checkLiveness, STUCK_ACTIVITY_ATTEMPTS } from '../../campaign/liveness';
import { insertPartnerMint, updatePartnerRequest } from '../../db/queries/partner-requests';
import { BrokerClient } from '../../partner/broker-client';
import { partnerMintWorkflowId } from '../../temporal/workflow-ids';
import type { partnerMintWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, startProductTemporal, type ProductTemporal } from '../support/temporal';

const CLIENT = 'acct-liveness-test';

let database: TestDb;
let temporal: ProductTemporal;
/** The broker's answer to each request's mint callback, by issuer request id. */
const answers = new Map<string, { status: number; body: unknown }>();
let broker: Server;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'liveness test')`, [CLIENT, `0x${'ef'.repeat(32)}`]);
  broker = createServer((request, response) => {
    request.resume().on('end', () => {
      const issuerRequestId = String(request.headers['idempotency-key'] ?? '').replace(/^mint-callback-/, '');
      const answer = answers.get(issuerRequestId) ?? { status: 200, body: { status: 'completed' } };
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', () => resolve()));
  const brokerClient = new BrokerClient({ url: `http://127.0.0.1:${(broker.address() as AddressInfo).port}`, accountId: 'issuer-account', key: 'issuer', secret: 'secret' });
  temporal = await startProductTemporal(createActivities({ db: database.db, broker: brokerClient }));
}, 60_000);

afterAll(async () => {
  await temporal?.teardown();
  await new Promise((resolve) => broker?.close(resolve));
  await database?.drop();
});

/** A minted partner request (tx hash stored) whose workflow is started at its callback; ids start with `prefix`. */
async function startMintedRequest(prefix: string) {
  const { request } = await insertPartnerMint(database.db, {
    issuerRequestId: `${prefix}-${randomUUID()}`,
    clientId: CLIENT,
    chain: 'ethereum-1',
    underlyingSymbol: 'AAPL',
    tokenSymbol: 'AAPLon',
    wallet: `0x${'44'.repeat(20)}`,
    qty: '1',
    sessionStart: 0,
    notionalUsd: '200',
    tokenizationRequestId: randomUUID(),
    mintRequest: { created: 1, nonce: '1', brokerSignature: `0x${'11'.repeat(65)}` },
    brokerSigner: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`,
  });
  await updatePartnerRequest(database.db, request.issuerRequestId, { state: 'minted', confirmStatus: 'completed', txHash: `0x${'ab'.repeat(32)}` });
  const handle = await temporal.client.workflow.start<typeof partnerMintWorkflow>('partnerMintWorkflow', {
    workflowId: partnerMintWorkflowId(request.issuerRequestId),
    taskQueue: temporal.taskQueue,
    args: [{ issuerRequestId: request.issuerRequestId }],
  });
  return { issuerRequestId: request.issuerRequestId, handle };
}

const onlyPrefix = (prefix: string) => `WorkflowId STARTS_WITH '${partnerMintWorkflowId(prefix)}'`;

test('a completed workflow is live', async () => {
  const { handle } = await startMintedRequest('live-done');
  expect(await handle.result()).toMatchObject({ state: 'completed' });

  expect(await checkLiveness({ client: temporal.client, query: onlyPrefix('live-done') })).toEqual({ violations: [], waiting: [], judged: 1 });
}, 60_000);

test('a workflow whose activity keeps failing is reported stuck, naming the activity, its attempts and the last failure', async () => {
  const { issuerRequestId, handle } = await startMintedRequest('live-failing');
  answers.set(issuerRequestId, { status: 500, body: { code: 'INTERNAL_ERROR', message: 'the broker is broken' } });
  await eventually(async () => {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    expect(pending.some((activity) => activity.activityType?.name === 'callBrokerBack' && (activity.attempt ?? 0) >= STUCK_ACTIVITY_ATTEMPTS)).toBe(true);
  }, 30_000);

  const report = await checkLiveness({ client: temporal.client, query: onlyPrefix('live-failing') });
  expect(report.violations).toEqual([
    {
      invariant: '6 liveness',
      rule: 'an activity keeps failing',
      records: expect.objectContaining({ workflowId: partnerMintWorkflowId(issuerRequestId), type: 'partnerMintWorkflow', activity: 'callBrokerBack', lastFailure: expect.stringContaining('500') }),
    },
  ]);
  expect(Number(report.violations[0]!.records.attempts)).toBeGreaterThanOrEqual(STUCK_ACTIVITY_ATTEMPTS);
  expect(report.waiting).toEqual([]);
}, 60_000);

test('a workflow waiting for review is live, with the reason an operator reads', async () => {
  const { issuerRequestId, handle } = await startMintedRequest('live-review');
  answers.set(issuerRequestId, { status: 422, body: { code: 'CLIENT_MISMATCH', message: 'client_id acct is not linked to the account of the mint' } });
  const wait = async () =>
    eventually(async () => expect(await handle.query<{ step: string }>('partnerRequestState')).toMatchObject({ step: 'needs_review' }), 60_000);
  await (temporal.timeSkipping ? temporal.timeSkipping.whileUnlocked(wait) : wait());

  expect(await checkLiveness({ client: temporal.client, query: onlyPrefix('live-review') })).toEqual({
    violations: [],
    waiting: [
      {
        workflowId: partnerMintWorkflowId(issuerRequestId),
        type: 'partnerMintWorkflow',
        step: 'needs_review',
        reason: expect.stringMatching(/^the broker refused the mint callback \d+ times, last with 422: .*CLIENT_MISMATCH/),
      },
    ],
    judged: 1,
  });
}, 90_000);

test('a workflow whose task no worker takes is reported stuck, naming its task queue', async () => {
  await temporal.stopWorker();
  const { issuerRequestId } = await startMintedRequest('live-no-worker');
  const report = await checkLiveness({ client: temporal.client, query: onlyPrefix('live-no-worker'), untakenWorkflowTaskMs: 1_000 });
  expect(report.violations).toEqual([
    {
      invariant: '6 liveness',
      rule: 'no worker takes its workflow task',
      records: { workflowId: partnerMintWorkflowId(issuerRequestId), runId: expect.any(String), type: 'partnerMintWorkflow', taskQueue: temporal.taskQueue, waitedMs: '1000' },
    },
  ]);
}, 60_000);

test('a workflow whose task a worker is running, with nothing else pending, is at work', async () => {
  await temporal.stopWorker();
  const { issuerRequestId } = await startMintedRequest('live-task-running');
  // A worker takes the workflow task (polled as the SDK polls it) and has not answered yet: between a timer firing or
  // an activity completing and the commands that follow, nothing else is pending. (Tasks the earlier tests left on the
  // queue are taken first.)
  const { workflowService, options } = temporal.client;
  const takeTask = () => workflowService.pollWorkflowTaskQueue({ namespace: options.namespace, taskQueue: { name: temporal.taskQueue }, identity: 'liveness test' });
  while ((await takeTask()).workflowExecution?.workflowId !== partnerMintWorkflowId(issuerRequestId));
  expect(await checkLiveness({ client: temporal.client, query: onlyPrefix('live-task-running') })).toEqual({ violations: [], waiting: [], judged: 1 });
}, 60_000);
