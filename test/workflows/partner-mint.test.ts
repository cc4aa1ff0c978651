/**
 * The partner mint workflow's wait for the broker's confirm, on the real worker against the in-memory service with
 * virtual time: no confirm within the timeout ends the mint `rejected` with nothing minted, and a confirm arriving
 * after that is refused (409) instead of being taken for shares the issuer will not mint against.
 */
import { randomUUID } from 'node:crypto';
import { createActivities } from '../../activities';
import { insertPartnerMint, findPartnerRequest } from '../../db/queries/partner';
import { PartnerRefused } from '../../partner/errors';
import { confirmIssuance } from '../../partner/issuance';
import { partnerRequestStateQuery } from '../../temporal/messages';
import { partnerMintWorkflowId } from '../../temporal/workflow-ids';
import type { partnerMintWorkflow } from '../../workflows';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually, startProductTemporal, type ProductTemporal } from '../support/temporal';

const withTimeSkipping = process.env.TEMPORAL_ADDRESS ? test.skip : test;
const CLIENT = 'acct-partner-mint-test';

let database: TestDb;
let temporal: ProductTemporal;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, 'partner mint test')`, [CLIENT, `0x${'ef'.repeat(32)}`]);
  temporal = await startProductTemporal(createActivities({ db: database.db }));
}, 60_000);

afterAll(async () => {
  await temporal?.teardown();
  await database?.drop();
});

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
