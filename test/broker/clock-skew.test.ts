/**
 * @jest-environment ./test/support/shifted-clock-environment.ts
 * @jest-environment-options {"offsetMs": 172800000}
 */
/**
 * The sandbox with its clock two days ahead of its database's, as on a host whose clock is off or a run moved to
 * another instant (harness/shifted-clock.mjs): a step the issuer answered 503 is still retried after its delay,
 * judged by the database's clock, the one that decides what is due.
 */
import request from 'supertest';
import { basic, ISSUANCE_PATH, ISSUER_ID, recordRow, sandboxForThisFile, waitFor, WALLET, type BrokerTestDb, type TestSandbox } from './support';

let database: BrokerTestDb;
let sandbox: TestSandbox;

sandboxForThisFile((started) => ({ database, sandbox } = started));

test('the clock is ahead of the database’s', async () => {
  const { rows } = await database.db.query<{ now: Date }>('SELECT now()');
  expect(Date.now() - rows[0]!.now.getTime()).toBeGreaterThan(86_400_000);
});

test('a submission the issuer answered 503 is sent again after its retry delay, and the mint completes', async () => {
  let issuance = 0;
  sandbox.issuer.behave((call) => (call.path === ISSUANCE_PATH && ++issuance === 1 ? { status: 503, body: { code: 'UNAVAILABLE', message: 'try later' } } : undefined));
  const response = await request(sandbox.broker.url)
    .post(`/v1/accounts/${sandbox.accountId}/tokenization/mint`)
    .set('authorization', basic(sandbox.participant))
    .send({ issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET, underlying_symbol: 'MSFT', qty: '1' });
  expect(response.status).toBe(201);
  const id = response.body.tokenization_request_id as string;
  const row = await waitFor(async () => {
    const found = await recordRow(database.db, id);
    return found?.step === 'done' ? found : undefined;
  }, `request ${id} to finish its steps`);
  expect(row).toMatchObject({ status: 'pending', transfer_status: 'completed' });
  expect(sandbox.issuer.callsTo(ISSUANCE_PATH)).toHaveLength(2);
});
