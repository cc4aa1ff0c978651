/**
 * The off-hours exposure ledger (migration 011) answers what a sum over the session's attestations answers, whatever
 * changes them: creation, execution seen and final, expiry by time and by state, deletion, and other sessions. Orders
 * waiting for it are stored together (attestations/batched-store.ts), each as it would be alone.
 */
import type { PoolClient } from 'pg';
import { BatchedStore } from '../../attestations/batched-store';
import { sessionExposure, type AttestationToStore, type NewAttestation } from '../../db/queries/attestations';
import { createApiKey } from '../../db/queries/api-keys';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { LEDGER_NOW, LEDGER_SESSION_STARTED, ledgerAttestation, storeLedgerAttestation } from '../support/ledger-attestations';

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

/** The definition: notional outstanding (and not past expiry), executing or executed in the off-hours session. */
async function summed(symbol: string, now: number): Promise<{ global: string; asset: string }> {
  const { rows } = await database.db.query<{ global: string; asset: string }>(
    `SELECT coalesce(sum(notional), 0)::numeric(30, 6)::text AS global, coalesce(sum(notional) FILTER (WHERE symbol = $1), 0)::numeric(30, 6)::text AS asset
       FROM attestations
      WHERE session = 'offhours' AND session_started_at = $3 AND (state IN ('executed', 'executing') OR (state = 'outstanding' AND expires_at > $2))`,
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

test('the ledger follows statements that change many attestations of several assets and sessions at once', async () => {
  const ids = [await attest('SPYon', '5'), await attest('SPYon', '6'), await attest('QQQon', '7'), await attest('QQQon', '8', { sessionStartedAt: STARTED - 86_400_000 })];
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'executing' WHERE attestation_id = ANY($1::numeric[])`, [ids]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = CASE WHEN symbol = 'SPYon' THEN 'executed' ELSE 'expired' END WHERE attestation_id = ANY($1::numeric[])`, [ids]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET state = 'outstanding', session_started_at = $2 WHERE attestation_id = ANY($1::numeric[])`, [ids.slice(0, 2), STARTED - 86_400_000]);
  await expectLedgerToMatch();
  await database.db.query(`UPDATE attestations SET session_started_at = $2, notional = notional + 1 WHERE attestation_id = ANY($1::numeric[])`, [ids, STARTED]);
  await expectLedgerToMatch();
  await database.db.query('DELETE FROM attestations WHERE attestation_id = ANY($1::numeric[])', [ids]);
  await expectLedgerToMatch();
});

describe('orders waiting for the ledger', () => {
  const caps = { global: '250', asset: '250' };
  const clients: PoolClient[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.release();
  });

  /** A connection with an order's transaction open, holding its user's lock as `beginOrder` leaves it. */
  async function orderTransaction(lock: number): Promise<PoolClient> {
    const client = await database.db.connect();
    clients.push(client);
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lock]);
    return client;
  }

  /**
   * Sends each order on its transaction to `store` while the session's ledger is held: the first goes alone and waits
   * for the ledger, the others arrive meanwhile and go together once it is released. Answers each order's answer, or
   * the SQLSTATE its store failed with.
   */
  async function storeBehindTheLedger(store: BatchedStore, orders: AttestationToStore[], transactions: PoolClient[]): Promise<(boolean | string | undefined)[]> {
    const holder = await database.db.connect();
    clients.push(holder);
    await holder.query('BEGIN');
    await holder.query(`INSERT INTO offhours_exposure AS e (session_started_at, symbol, notional) VALUES ($1, '*', 0)
                        ON CONFLICT (session_started_at, symbol) DO UPDATE SET notional = e.notional`, [STARTED]);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const first = store.storeAndCommit(transactions[0]!, orders[0]!);
    await sleep(50);
    const rest = orders.slice(1).map((order, index) => store.storeAndCommit(transactions[index + 1]!, order));
    const settled = Promise.allSettled([first, ...rest]);
    await sleep(150);
    await holder.query('COMMIT');
    return (await settled).map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as { code?: string }).code));
  }

  const offhours = (symbol: string, notional: string, overrides: Partial<NewAttestation> = {}) =>
    ledgerAttestation(accountId, symbol, notional, { session: 'offhours', ...overrides });

  /** The transaction that stored each attestation, and the open transactions left on the database. */
  async function storedBy(ids: string[]): Promise<{ transactions: (string | undefined)[]; openTransactions: number }> {
    const { rows } = await database.db.query<{ id: string; xmin: string }>(
      'SELECT attestation_id::text AS id, xmin::text FROM attestations WHERE attestation_id = ANY($1::numeric[])',
      [ids],
    );
    const open = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    return { transactions: ids.map((id) => rows.find((row) => row.id === id)?.xmin), openTransactions: open.rows[0]!.n };
  }

  test('go together, each within the caps as the ones before it left them, and every order\'s transaction ends', async () => {
    await database.db.query('DELETE FROM attestations');
    const store = new BatchedStore();
    // The last one is of the regular session, where no exposure caps apply.
    const orders = [
      { attestation: offhours('SPYon', '100'), caps },
      { attestation: offhours('QQQon', '100'), caps },
      { attestation: offhours('SPYon', '100'), caps },
      { attestation: offhours('QQQon', '50'), caps },
      { attestation: ledgerAttestation(accountId, 'QQQon', '1000') },
    ];
    const transactions = await Promise.all(orders.map((_, index) => orderTransaction(index)));
    const answers = await storeBehindTheLedger(store, orders, transactions);
    // 100 + 100 leaves 50 of the global 250: the third (100) is refused, the fourth (50) fits.
    expect(answers).toEqual([true, true, false, true, true]);
    const { transactions: storing, openTransactions } = await storedBy(orders.map((order) => order.attestation.attestationId));
    expect(storing[2]).toBeUndefined();
    expect(storing[1]).toBe(storing[3]);
    expect(storing[1]).toBe(storing[4]);
    expect(storing[0]).not.toBe(storing[1]);
    expect(openTransactions).toBe(0);
    await expectLedgerToMatch();
  });

  test('mark the session\'s attestations past their expiry expired, as their workflows will, so that the exposure read skips them', async () => {
    await database.db.query('DELETE FROM attestations');
    const lapsed = await attest('SPYon', '10', { expiresAt: NOW - 1_000 });
    const live = await attest('SPYon', '10', { expiresAt: NOW + 60_000 });
    const otherSession = await attest('SPYon', '10', { expiresAt: NOW - 1_000, sessionStartedAt: STARTED - 86_400_000 });
    const store = new BatchedStore();
    expect(await store.storeAndCommit(await orderTransaction(1), { attestation: offhours('QQQon', '10', { createdAt: NOW }), caps })).toBe(true);
    const { rows } = await database.db.query<{ id: string; state: string; changed: number | null; expires: number }>(
      'SELECT attestation_id::text AS id, state, state_changed_at AS changed, expires_at AS expires FROM attestations WHERE attestation_id = ANY($1::numeric[])',
      [[lapsed, live, otherSession]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(lapsed)).toMatchObject({ state: 'expired', changed: byId.get(lapsed)!.expires });
    expect(byId.get(live)!.state).toBe('outstanding');
    expect(byId.get(otherSession)!.state).toBe('outstanding');
    await expectLedgerToMatch();
  });

  test('count the lapsed ones no store has marked yet as free, read once for a batch', async () => {
    await database.db.query('DELETE FROM attestations');
    // 250 lapsed, 2 500 in the ledger until marked: the first store marks 100, the batch after it 100, and 50 remain.
    await database.db.query(
      `INSERT INTO attestations SELECT (jsonb_populate_record(NULL::attestations, to_jsonb(t) || jsonb_build_object('attestation_id', 1e12 + g))).*
         FROM attestations t, generate_series(1, 249) g WHERE t.attestation_id = $1`,
      [await attest('SPYon', '10', { expiresAt: NOW - 1_000 })],
    );
    const orders = [
      { attestation: offhours('SPYon', '100', { createdAt: NOW }), caps },
      { attestation: offhours('QQQon', '100', { createdAt: NOW }), caps },
      { attestation: offhours('SPYon', '100', { createdAt: NOW }), caps },
    ];
    const transactions = await Promise.all(orders.map((_, index) => orderTransaction(index)));
    // Within the global 250 only once the lapsed are left out: 100 and 100 fit, the third does not.
    expect(await storeBehindTheLedger(new BatchedStore(), orders, transactions)).toEqual([true, true, false]);
    const { rows } = await database.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM attestations WHERE state = 'outstanding' AND expires_at < $1`, [NOW]);
    expect(rows[0]!.n).toBe(50);
    await expectLedgerToMatch();
  });

  test('a batch that fails is undone and each of its orders stored alone, with its own answer', async () => {
    await database.db.query('DELETE FROM attestations');
    const store = new BatchedStore();
    // The third repeats the second's idempotency key (another asset, so another user lock): the batch fails, and alone,
    // whichever of the two is stored first wins.
    const orders = [
      { attestation: offhours('SPYon', '10'), caps },
      { attestation: offhours('SPYon', '10', { idempotencyKey: 'once' }), caps },
      { attestation: offhours('QQQon', '10', { idempotencyKey: 'once' }), caps },
    ];
    const transactions = await Promise.all(orders.map((_, index) => orderTransaction(index)));
    const outcomes = await storeBehindTheLedger(store, orders, transactions);
    expect(outcomes[0]).toBe(true);
    expect(outcomes.slice(1).sort()).toEqual(['23505', true]);
    // The failed order's transaction is left to its caller, who rolls it back.
    const failed = outcomes.indexOf('23505');
    await transactions[failed]!.query('ROLLBACK');
    const { transactions: storing, openTransactions } = await storedBy(orders.map((order) => order.attestation.attestationId));
    expect(storing.map((transaction) => transaction !== undefined)).toEqual(outcomes.map((outcome) => outcome === true));
    expect(openTransactions).toBe(0);
    await expectLedgerToMatch();
  });
});
