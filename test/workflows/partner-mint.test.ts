/**
 * The partner mint workflow on the real worker against the in-memory service with virtual time: no confirm within the
 * timeout ends the mint `rejected` with nothing minted, and a confirm arriving after that is refused (409) instead of
 * being taken for shares the issuer will not mint against; a mint callback the broker (a real HTTP server here) keeps
 * refusing is sent a bounded number of times, then waits in `needs_review` with the broker's answer until resumed,
 * while transient failures keep being retried.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createActivities } from '../../activities';
import { insertPartnerMint, findPartnerRequest, updatePartnerRequest } from '../../db/queries/partner-requests';
import { BrokerClient } from '../../partner/broker-client';
import { partnerResumeSignal } from '../../temporal/messages';
import { BROKER_CALLBACK_ATTEMPTS } from '../../workflows/partner-steps';
import { PartnerRefused } from '../../partner/errors';
import { confirmIssuance } from '../../partner/issuance';
import { partnerRequestStateQuery } from '../../temporal/messages';
import { partnerMintWorkflowId } from '../../temporal/workflow-ids';
import type { partnerMintWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, recordProductHistory, startProductTemporal, type ProductTemporal } from '../support/temporal';

const withTimeSkipping = process.env.TEMPORAL_ADDRESS ? test.skip : test;
const CLIENT = 'acct-partner-mint-test';

let database: TestDb;
let temporal: ProductTemporal;
/** The broker's answers to the mint callbacks, in order (the last one repeats), and the callbacks it received. */
let brokerAnswers: { status: number; body: unknown }[] = [];
const callbacks: string[] = [];
let broker: Server;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'partner mint test')`, [CLIENT, `0x${'ef'.repeat(32)}`]);
  broker = createServer((request, response) => {
    request.resume().on('end', () => {
      callbacks.push(request.url ?? '');
      const answer = brokerAnswers.length > 1 ? brokerAnswers.shift()! : brokerAnswers[0]!;
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

/** A mint whose tokens are minted (tx hash stored), its workflow to start at the callback. */
async function mintedRequest(): Promise<string> {
  const { request } = await insertPartnerMint(database.db, {
    issuerRequestId: `mint-${randomUUID()}`,
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
  return request.issuerRequestId;
}

function startMint(issuerRequestId: string) {
  return temporal.client.workflow.start<typeof partnerMintWorkflow>('partnerMintWorkflow', {
    workflowId: partnerMintWorkflowId(issuerRequestId),
    taskQueue: temporal.taskQueue,
    args: [{ issuerRequestId }],
  });
}

withTimeSkipping('a mint the broker does not confirm in time is rejected, and a late confirm is refused', async () => {
  const tokenizationRequestId = randomUUID();
  const { request } = await insertPartnerMint(database.db, {
    issuerRequestId: `mint-${randomUUID()}`,
    clientId: CLIENT,
    chain: 'ethereum-1',
    underlyingSymbol: 'AAPL',
    tokenSymbol: 'AAPLon',
    wallet: `0x${'44'.repeat(20)}`,
    qty: '1',
    sessionStart: 0,
    notionalUsd: '200',
    tokenizationRequestId,
    mintRequest: { created: 1, nonce: '1', brokerSignature: `0x${'11'.repeat(65)}` },
    brokerSigner: `0x${randomUUID().replace(/-/g, '').padEnd(40, '0')}`,
  });
  const handle = await temporal.client.workflow.start<typeof partnerMintWorkflow>('partnerMintWorkflow', {
    workflowId: partnerMintWorkflowId(request.issuerRequestId),
    taskQueue: temporal.taskQueue,
    args: [{ issuerRequestId: request.issuerRequestId, confirmTimeoutMs: 10 * 60_000 }],
  });
  await eventually(async () => expect(await handle.query(partnerRequestStateQuery)).toMatchObject({ state: 'created', step: 'awaiting_confirm' }));

  await temporal.timeSkipping!.skip(10 * 60_000 + 1_000);
  expect(await temporal.timeSkipping!.whileUnlocked(() => handle.result())).toMatchObject({ state: 'rejected', reason: 'the broker did not confirm the journal in time', txHash: null });
  expect(await findPartnerRequest(database.db, request.issuerRequestId)).toMatchObject({ state: 'rejected', confirmStatus: null, tokenAmount: null });

  const late = confirmIssuance(
    { db: database.db, workflows: { client: temporal.client, taskQueue: temporal.taskQueue } },
    { tokenizationRequestId, issuerRequestId: request.issuerRequestId, status: 'completed' },
  );
  await expect(late).rejects.toEqual(new PartnerRefused('REQUEST_CONFLICT', `Issuer request ${request.issuerRequestId} is rejected: the broker did not confirm the journal in time`));
  expect((await findPartnerRequest(database.db, request.issuerRequestId))!.confirmStatus).toBeNull();
}, 60_000);

withTimeSkipping('a mint callback the broker keeps refusing is sent a bounded number of times, then waits in needs_review with the answer until resumed', async () => {
  const issuerRequestId = await mintedRequest();
  callbacks.length = 0;
  brokerAnswers = [{ status: 422, body: { code: 'CLIENT_MISMATCH', message: 'client_id acct is not linked to the account of the mint' } }];
  const handle = await startMint(issuerRequestId);
  const held = await temporal.timeSkipping!.whileUnlocked(() =>
    eventually(async () => {
      const stored = (await findPartnerRequest(database.db, issuerRequestId))!;
      expect(stored.state).toBe('needs_review');
      return stored;
    }, 30_000),
  );
  expect(held.reason).toBe(
    `the broker refused the mint callback ${BROKER_CALLBACK_ATTEMPTS} times, last with 422: {"code":"CLIENT_MISMATCH","message":"client_id acct is not linked to the account of the mint"}`,
  );
  expect(callbacks).toHaveLength(BROKER_CALLBACK_ATTEMPTS);
  expect(await handle.query(partnerRequestStateQuery)).toMatchObject({ state: 'needs_review', step: 'needs_review', reason: held.reason });
  // Nothing more is sent while it waits, whatever time passes.
  await temporal.timeSkipping!.skip(60 * 60_000);
  expect(callbacks).toHaveLength(BROKER_CALLBACK_ATTEMPTS);

  // The operator had the broker fix the link, then resumes: the callback goes out again and the mint completes.
  brokerAnswers = [{ status: 200, body: { status: 'completed' } }];
  await handle.signal(partnerResumeSignal);
  expect(await temporal.timeSkipping!.whileUnlocked(() => handle.result())).toMatchObject({ state: 'completed', step: 'done' });
  expect(await findPartnerRequest(database.db, issuerRequestId)).toMatchObject({ state: 'completed', reason: null });
  expect(callbacks).toHaveLength(BROKER_CALLBACK_ATTEMPTS + 1);
  await recordProductHistory('partner-mint-callback-reviewed', handle);
}, 60_000);

withTimeSkipping('transient broker failures (5xx, 429, 409) keep being retried and never send the request to review', async () => {
  const issuerRequestId = await mintedRequest();
  callbacks.length = 0;
  brokerAnswers = [
    { status: 503, body: { code: 'UNAVAILABLE' } },
    { status: 429, body: { code: 'RATE_LIMITED' } },
    { status: 409, body: { code: 'REQUEST_CONFLICT', message: 'The shares of mint x are not journalled yet' } },
    { status: 503, body: { code: 'UNAVAILABLE' } },
    { status: 500, body: { code: 'INTERNAL_ERROR' } },
    { status: 429, body: { code: 'RATE_LIMITED' } },
    { status: 200, body: { status: 'completed' } },
  ];
  const handle = await startMint(issuerRequestId);
  expect(await temporal.timeSkipping!.whileUnlocked(() => handle.result())).toMatchObject({ state: 'completed' });
  expect(callbacks).toHaveLength(7);
  const history = await handle.fetchHistory();
  const stateChanges = history.events!.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'setPartnerRequestState');
  expect(stateChanges).toHaveLength(1);
  await recordProductHistory('partner-mint-callback-retried', handle);
}, 120_000);
