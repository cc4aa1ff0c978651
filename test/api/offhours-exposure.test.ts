/**
 * The off-hours exposure ledger (migration 011) answers what a sum over the session's attestations answers, whatever
 * changes them: creation, execution seen and final, expiry by time and by state, deletion, and other sessions.
 */
import { sessionExposure, type NewAttestation } from '../../db/queries/attestations';
import { createApiKey } from '../../db/queries/api-keys';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { LEDGER_NOW, LEDGER_SESSION_STARTED, storeLedgerAttestation } from '../support/ledger-attestations';

let database: TestDb;
let accountId: string;
beforeAll(async () => {
  database = await cloneTemplateDatabase();
  accountId = (await createApiKey(database.db, { name: 'ledger', scope: 'write' })).key.accountId!;
});
afterAll(() => database.drop());

const STARTED = LEDGER_SESSION_STARTED;
const NOW = LEDGER_NOW;

function attest(symbol: string, notional: string, overrides: Partial<NewAttestation> = {}): Promise<string> {
  return storeLedgerAttestation(database.db, overrides.accountId ?? accountId, symbol, notional, { session: 'offhours', ...overrides });
}

/** The definition: notional outstanding (and not past expiry), executing or executed in the session. */
async function summed(symbol: string, now: number): Promise<{ global: string; asset: string }> {
  const { rows } = await database.db.query<{ global: string; asset: string }>(
    `SELECT coalesce(sum(notional), 0)::numeric(30, 6)::text AS global, coalesce(sum(notional) FILTER (WHERE symbol = $1), 0)::numeric(30, 6)::text AS asset
       FROM attestations WHERE session_started_at = $3 AND (state IN ('executed', 'executing') OR (state = 'outstanding' AND expires_at > $2))`,
    [symbol, now, STARTED],
  );
  return rows[0]!;
}

async function expectLedgerToMatch(now = NOW): Promise<void> {
  for (const symbol of ['SPYon', 'QQQon']) {
    const ledger = await sessionExposure(database.db, { symbol, now, sessionStartedAt: STARTED });
    const expected = await summed(symbol, now);
    expect({ global: Number(ledger.global).toFixed(6), asset: Number(ledger.asset).toFixed(6) }).toEqual(expected);
  }
}

test('the ledger follows the attestations through every change', async () => {
  await expectLedgerToMatch();
  const spy = await attest('SPYon', '100.5');
  const qqq = await attest('QQQon', '250');
  await attest('SPYon', '40', { expiresAt: NOW - 1 });
  await attest('SPYon', '999', { session: 'regular', sessionStartedAt: STARTED - 86_400_000 });
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'executing' WHERE attestation_id = $1`, [spy]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [spy]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'expired' WHERE attestation_id = $1`, [qqq]);
  await expectLedgerToMatch();
  await expectLedgerToMatch(NOW + 120_000);
  await database.db.query(`UPDATE attestations SET state = 'outstanding' WHERE attestation_id = $1`, [qqq]);
  await expectLedgerToMatch();
  await database.db.query(`DELETE FROM attestations WHERE attestation_id = $1`, [qqq]);
  await expectLedgerToMatch();
  const { global } = await sessionExposure(database.db, { symbol: 'SPYon', now: NOW, sessionStartedAt: STARTED });
  expect(Number(global)).toBe(100.5);
});
