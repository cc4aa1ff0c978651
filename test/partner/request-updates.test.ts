/**
 * A partner request's updates (db/queries/partner-requests.ts) on a database of its own: an operator's assignment of a
 * client to a redemption held without one applies only while it has none, so two operators resuming the same request
 * never have the second overwrite the first — even once its workflow has put it back to review with that client.
 */
import { findPartnerRequest, insertPartnerRedemption, updatePartnerRequest } from '../../db/queries/partner-requests';
import { recordRedemption } from '../../db/queries/redemptions';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

const FIRST = 'acct-request-updates-first';
const SECOND = 'acct-request-updates-second';
const WALLET = `0x${'66'.repeat(20)}` as const;

let database: TestDb;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  for (const [index, id] of [FIRST, SECOND].entries()) {
    await database.db.query(`INSERT INTO accounts (id, user_id, name) VALUES ($1, $2, $1)`, [id, `0x${String(index + 1).repeat(64)}`]);
  }
});
afterAll(async () => {
  await database?.drop();
});

test('a client is assigned only to a request without one', async () => {
  const redemptionId = 'redemption-1-0xupdates-0';
  await recordRedemption(database.db, {
    redemptionId,
    chain: 'ethereum-1',
    txHash: `0x${'77'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 10,
    blockTime: 1_790_000_000_000,
    wallet: WALLET,
    userId: `0x${'88'.repeat(32)}`,
    token: `0x${'99'.repeat(20)}`,
    symbol: 'AAPLon',
    amount: '100000000000000000',
    usdNotional: '20000000000000000000',
  });
  const held = await insertPartnerRedemption(database.db, {
    redemptionId,
    clientId: null,
    chain: 'ethereum-1',
    underlyingSymbol: 'AAPL',
    tokenSymbol: 'AAPLon',
    wallet: WALLET,
    tokenAmount: '100000000000000000',
    txHash: `0x${'77'.repeat(32)}`,
  });
  expect(held).toMatchObject({ state: 'needs_review', clientId: null });
  const mirrored = async () => (await database.db.query<{ state: string }>('SELECT state FROM redemptions WHERE redemption_id = $1', [redemptionId])).rows[0]!.state;
  // The chain record follows the request's state.
  expect(await mirrored()).toBe('needs_review');

  const assign = (clientId: string) => updatePartnerRequest(database.db, redemptionId, { clientId, state: 'pending', reason: null }, ['needs_review'], { unassigned: true });
  expect(await assign(FIRST)).toMatchObject({ state: 'pending', clientId: FIRST });
  expect(await mirrored()).toBe('pending');
  // Its workflow finds it over every limit and holds it again, with the client it was given.
  await updatePartnerRequest(database.db, redemptionId, { state: 'needs_review', reason: 'over every limit' }, ['pending']);
  // A second operator, who read it while it had no client, assigns another: nothing changes.
  expect(await assign(SECOND)).toMatchObject({ state: 'needs_review', clientId: FIRST });
  expect(await findPartnerRequest(database.db, redemptionId)).toMatchObject({ state: 'needs_review', clientId: FIRST, reason: 'over every limit' });
  // Without the guard, the same update would have taken the request from the first client.
  expect(await updatePartnerRequest(database.db, redemptionId, { clientId: SECOND }, ['needs_review'])).toMatchObject({ clientId: SECOND });
});
