/**
 * The per-account usage ledger (migration 012) answers what a sum over the user's attestations answers, whatever
 * changes them: creation, execution seen and final, expiry by time and by state, a reorganisation's undo, deletion,
 * other sessions, other assets and other accounts.
 */
import { userUsage, type NewAttestation } from '../../db/queries/attestations';
import { createApiKey } from '../../db/queries/api-keys';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { LEDGER_NOW, LEDGER_SESSION_STARTED, storeLedgerAttestation } from '../support/ledger-attestations';

let database: TestDb;
let accountId: string;
let otherAccountId: string;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
  accountId = (await createApiKey(database.db, { name: 'usage', scope: 'write' })).key.accountId!;
  otherAccountId = (await createApiKey(database.db, { name: 'other', scope: 'write' })).key.accountId!;
});
afterAll(() => database.drop());

const STARTED = LEDGER_SESSION_STARTED;
const EARLIER_SESSION = STARTED - 86_400_000;
const NOW = LEDGER_NOW;

function attest(symbol: string, notional: string, overrides: Partial<NewAttestation> = {}): Promise<string> {
  return storeLedgerAttestation(database.db, overrides.accountId ?? accountId, symbol, notional, overrides);
}

/** The definition, summed over the attestations themselves. */
async function summed(account: string, symbol: string, now: number) {
  const { rows } = await database.db.query<{ outstandingCount: number; outstandingNotional: string; sessionNotional: string }>(
    `SELECT count(*) FILTER (WHERE live)::int AS "outstandingCount",
            coalesce(sum(notional) FILTER (WHERE live), 0)::numeric(30, 6)::text AS "outstandingNotional",
            coalesce(sum(notional) FILTER (WHERE session_started_at = $4 AND (live OR state = 'executed')), 0)::numeric(30, 6)::text AS "sessionNotional"
       FROM (SELECT notional, state, session_started_at, ((state = 'outstanding' AND expires_at > $3) OR state = 'executing') AS live
               FROM attestations WHERE account_id = $1 AND symbol = $2) AS a`,
    [account, symbol, now, STARTED],
  );
  return rows[0]!;
}

async function expectLedgerToMatch(now = NOW): Promise<void> {
  for (const account of [accountId, otherAccountId]) {
    for (const symbol of ['SPYon', 'QQQon']) {
      const ledger = await userUsage(database.db, { accountId: account, symbol, now, sessionStartedAt: STARTED });
      const expected = await summed(account, symbol, now);
      expect({ ...ledger, outstandingNotional: Number(ledger.outstandingNotional).toFixed(6), sessionNotional: Number(ledger.sessionNotional).toFixed(6) }).toEqual(expected);
    }
  }
}

const setState = (attestationId: string, state: string) => database.db.query('UPDATE attestations SET state = $2 WHERE attestation_id = $1', [attestationId, state]);

test('the ledger follows the attestations through every change', async () => {
  await expectLedgerToMatch();
  const spy = await attest('SPYon', '100.5');
  const qqq = await attest('QQQon', '250');
  await attest('SPYon', '40', { expiresAt: NOW - 1 });
  const earlier = await attest('SPYon', '999', { sessionStartedAt: EARLIER_SESSION, expiresAt: NOW + 3_600_000 });
  await attest('SPYon', '7', { accountId: otherAccountId });
  await expectLedgerToMatch();
  await setState(spy, 'executing');
  await expectLedgerToMatch();
  await setState(spy, 'executed');
  await expectLedgerToMatch();
  // A reorganisation takes the execution back.
  await setState(spy, 'executing');
  await setState(spy, 'outstanding');
  await expectLedgerToMatch();
  await setState(qqq, 'expired');
  await expectLedgerToMatch();
  await expectLedgerToMatch(NOW + 120_000);
  await setState(earlier, 'executed');
  await expectLedgerToMatch();
  await database.db.query('UPDATE attestations SET notional = 12.25 WHERE attestation_id = $1', [spy]);
  await expectLedgerToMatch();
  await database.db.query('DELETE FROM attestations WHERE attestation_id = $1', [qqq]);
  await expectLedgerToMatch();
  expect(await userUsage(database.db, { accountId, symbol: 'SPYon', now: NOW, sessionStartedAt: STARTED })).toEqual({
    outstandingCount: 1,
    outstandingNotional: '12.25',
    sessionNotional: '12.25',
  });
});

test('the ledger follows statements that change many attestations of several accounts and assets at once', async () => {
  const ids = [];
  for (const [account, symbol, notional] of [[accountId, 'SPYon', '5'], [accountId, 'SPYon', '6'], [accountId, 'QQQon', '7'], [otherAccountId, 'SPYon', '8']] as const) {
    ids.push(await attest(symbol, notional, { accountId: account }));
  }
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'executing' WHERE attestation_id = ANY($1::numeric[])`, [ids]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = CASE WHEN symbol = 'SPYon' THEN 'executed' ELSE 'outstanding' END WHERE attestation_id = ANY($1::numeric[])`, [ids]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET notional = notional * 2, session_started_at = $2 WHERE attestation_id = ANY($1::numeric[])`, [ids, EARLIER_SESSION]);
  await expectLedgerToMatch();
  await database.db.query('DELETE FROM attestations WHERE attestation_id = ANY($1::numeric[])', [ids]);
  await expectLedgerToMatch();
});
