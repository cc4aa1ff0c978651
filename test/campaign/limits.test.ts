/**
 * The campaign checker's invariant 4 (limits), recomputed from the stored attestations at every creation instant: a
 * history within the caps passes (including an attestation that freed its room by executing or expiring); each cap
 * exceeded is reported once, at its first instant, naming the attestations it counted.
 */
import { checkLimits } from '../../campaign/limits-invariant';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { ACCOUNT, insertAttestation, resetHistory, T0, tx, type AttestationRow } from './history';

const CAPS = { offhoursGlobalExposure: '1000', offhoursAssetExposure: '600' };

let database: TestDb;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
});

afterAll(async () => {
  await database?.drop();
});

beforeEach(async () => {
  await resetHistory(database.db);
  // AAPLon in the regular session: 2 open attestations, 500 USD open, 800 USD in the session.
  await database.db.query(
    `UPDATE session_limits SET max_attestation_count = 2, max_active_notional_value = 500, max_session_notional_value = 800
      WHERE symbol = 'AAPLon' AND session = 'regular'`,
  );
});

const check = () => checkLimits(database.db, CAPS);

/** An attestation of 200 USD (2 tokens at 100) created at T0 + id seconds, open for 60 s, unless told otherwise. */
const attest = (id: number, overrides: Omit<AttestationRow, 'id'> = {}) =>
  insertAttestation(database.db, { id, ...overrides });

test('within every cap: room freed by an execution or an expiry is used again', async () => {
  await attest(1, { state: 'executed', txHash: tx(1), stateChangedAt: T0 + 5_000 });
  await attest(2, { state: 'expired', expiresAt: T0 + 6_000, stateChangedAt: T0 + 6_000 });
  // At T0 + 7 s: 1 executed (left the open set at 5 s), 2 expired at 6 s: 3 and 4 are the two open.
  await attest(3, { createdAt: T0 + 7_000 });
  await attest(4, { createdAt: T0 + 8_000 });
  expect(await check()).toEqual([]);
});

test('a third open attestation and 600 USD open are each named at their first instant', async () => {
  await attest(1);
  await attest(2);
  await attest(3);
  expect(await check()).toEqual([
    {
      invariant: '4 limits',
      rule: 'exposure above max_active_notional_value',
      records: {
        cap: 'max_active_notional_value',
        scope: ACCOUNT,
        symbol: 'AAPLon',
        instant: '2026-09-21T14:13:23.000Z',
        attestationId: '3',
        limit: '500',
        amount: '600',
        counted: '1,2,3',
      },
    },
    {
      invariant: '4 limits',
      rule: 'exposure above max_attestation_count',
      records: { cap: 'max_attestation_count', scope: ACCOUNT, symbol: 'AAPLon', instant: '2026-09-21T14:13:23.000Z', attestationId: '3', limit: '2', amount: '3', counted: '1,2,3' },
    },
  ]);
});

test('executed notional stays in the session: above its cap once open ones are gone is named', async () => {
  await attest(1, { state: 'executed', txHash: tx(1), stateChangedAt: T0 + 1_500, expiresAt: T0 + 10_000, tokens: '2.5' });
  await attest(2, { state: 'executed', txHash: tx(2), stateChangedAt: T0 + 2_500, expiresAt: T0 + 10_000, tokens: '2.5' });
  await attest(3, { state: 'executed', txHash: tx(3), stateChangedAt: T0 + 3_500, expiresAt: T0 + 10_000, tokens: '2.5' });
  expect(await check()).toEqual([]);
  // 750 executed, each past its expiry; 100 more is 850 in the session though only 100 is open.
  await attest(4, { tokens: '1', createdAt: T0 + 20_000 });
  expect((await check()).map((v) => v.records)).toEqual([
    {
      cap: 'max_session_notional_value',
      scope: `${ACCOUNT} session ${T0}`,
      symbol: 'AAPLon',
      instant: '2026-09-21T14:13:40.000Z',
      attestationId: '4',
      limit: '800',
      amount: '850',
      counted: '1,2,3,4',
    },
  ]);
});

test("the issuer's off-hours exposure over all users, per asset and overall, is named", async () => {
  await database.db.query(`UPDATE session_limits SET tradable = true, max_attestation_count = 100, max_active_notional_value = 1e9, max_session_notional_value = 1e9 WHERE session = 'offhours'`);
  const offhours = { session: 'offhours', sessionStartedAt: T0 - 1_000 };
  // 1 executed at 1.5 s and expired at 3 s: still the issuer's exposure.
  await attest(1, { ...offhours, symbol: 'SPYon', tokens: '3', state: 'executed', txHash: tx(1), stateChangedAt: T0 + 1_500, expiresAt: T0 + 3_000 });
  await attest(2, { ...offhours, symbol: 'SPYon', tokens: '3', accountId: `${ACCOUNT}_2` });
  expect(await check()).toEqual([]);
  await attest(3, { ...offhours, symbol: 'QQQon', tokens: '3', accountId: `${ACCOUNT}_2` });
  await attest(4, { ...offhours, symbol: 'SPYon', tokens: '1', state: 'expired', expiresAt: T0 + 4_500, stateChangedAt: T0 + 4_500 });
  // At T0 + 4 s: 700 of SPYon, 1 000 in all (the global cap is not exceeded by reaching it).
  expect((await check()).map((v) => [v.records.cap, v.records.symbol, v.records.amount, v.records.counted])).toEqual([
    ['OFFHOURS_ASSET_EXPOSURE_LIMIT', 'SPYon', '700', '1,2,4'],
  ]);
  // 4 expired at 4.5 s: at 6 s, 1 100 in all without it.
  await attest(5, { ...offhours, symbol: 'QQQon', tokens: '2', createdAt: T0 + 6_000, accountId: `${ACCOUNT}_2` });
  expect((await check()).map((v) => [v.records.cap, v.records.symbol, v.records.instant, v.records.amount, v.records.counted])).toEqual([
    ['OFFHOURS_ASSET_EXPOSURE_LIMIT', 'SPYon', '2026-09-21T14:13:24.000Z', '700', '1,2,4'],
    ['OFFHOURS_GLOBAL_EXPOSURE_LIMIT', '*', '2026-09-21T14:13:26.000Z', '1100', '1,2,3,5'],
  ]);
});

test('at one instant, what stops counting then is gone and every attestation created then is counted', async () => {
  await database.db.query(`UPDATE session_limits SET max_active_notional_value = 1e9 WHERE symbol = 'AAPLon' AND session = 'regular'`);
  await attest(1, { createdAt: T0, expiresAt: T0 + 5_000, state: 'expired', stateChangedAt: T0 + 5_000 });
  await attest(2, { createdAt: T0 + 1_000 });
  await attest(3, { createdAt: T0 + 5_000 });
  expect(await check()).toEqual([]);
  // Stored together (one batch, one instant): both count at it, the first of them included.
  await attest(4, { createdAt: T0 + 6_000 });
  await attest(5, { createdAt: T0 + 6_000 });
  expect((await check()).map((v) => [v.records.cap, v.records.instant, v.records.attestationId, v.records.amount, v.records.counted])).toEqual([
    ['max_attestation_count', '2026-09-21T14:13:26.000Z', '4', '4', '2,3,4,5'],
  ]);
});
