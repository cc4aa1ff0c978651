/**
 * The share journal and the sandbox's own schema: concurrent withdrawals never take a position below zero, a
 * movement happens once per idempotency key, opposite movements do not deadlock, the database itself refuses a
 * negative position; migrations and seeding are idempotent, even started concurrently.
 */
import { Decimal } from '../../domain/money';
import { applyMigrations } from '../../db/migrate';
import { BROKER_MIGRATIONS, newBrokerCredential, sandboxAccountId, seedBrokerSandbox } from '../../broker';
import { moveShares, type Movement, type MovementOutcome } from '../../broker/queries/journal';
import { createBrokerTestDb, position, type BrokerTestDb } from './support';

let database: BrokerTestDb;
let accountId: string;
let issuerAccountId: string;

beforeAll(async () => {
  database = await createBrokerTestDb();
  const seeded = await seedBrokerSandbox(database.db, {
    brokerCredential: newBrokerCredential(),
    participants: [{ accountNumber: 'SBX-J1', email: 'j1@sandbox.test', symbols: ['AAPL', 'MSFT'], minimumShares: '1000' }],
  });
  accountId = seeded.accounts[0]!.accountId;
  issuerAccountId = seeded.issuerAccount.accountId;
});

afterAll(async () => {
  await database?.drop();
});

async function move(movement: Movement): Promise<MovementOutcome> {
  const client = await database.db.connect();
  try {
    await client.query('BEGIN');
    const outcome = await moveShares(client, movement);
    await client.query('COMMIT');
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

it('lets concurrent withdrawals take exactly what the position holds, never more', async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 16 }, (_, index) =>
      move({ fromAccount: accountId, toAccount: issuerAccountId, symbol: 'AAPL', qty: '150.5', reason: 'mint', idempotencyKey: `withdraw-${index}` }),
    ),
  );
  const moved = outcomes.filter((outcome) => outcome.outcome === 'moved').length;
  expect(moved).toBe(6); // 6 × 150.5 = 903 ≤ 1000 < 7 × 150.5
  expect(outcomes.filter((outcome) => outcome.outcome === 'insufficient')).toHaveLength(10);
  expect(await position(database.db, accountId, 'AAPL')).toBe('97.000000000');
  expect(await position(database.db, issuerAccountId, 'AAPL')).toBe('903.000000000');
  const { rows } = await database.db.query(`SELECT count(*)::int AS n, sum(qty)::text AS total FROM broker.journal WHERE symbol = 'AAPL' AND reason = 'mint'`);
  expect(rows[0]).toEqual({ n: 6, total: '903.000000000' });
});

it('moves once per idempotency key, however often and however concurrently it is asked', async () => {
  const before = await position(database.db, accountId, 'MSFT');
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, () => move({ fromAccount: accountId, toAccount: issuerAccountId, symbol: 'MSFT', qty: '1', reason: 'mint', idempotencyKey: 'same-key' })),
  );
  expect(outcomes.filter((outcome) => outcome.outcome === 'moved')).toHaveLength(1);
  expect(outcomes.filter((outcome) => outcome.outcome === 'duplicate')).toHaveLength(9);
  expect(await position(database.db, accountId, 'MSFT')).toBe(new Decimal(before).minus(1).toFixed(9));
});

it('runs opposite movements of one symbol concurrently without deadlock, conserving the total', async () => {
  const movements = Array.from({ length: 30 }, (_, index) =>
    index % 2 === 0
      ? { fromAccount: accountId, toAccount: issuerAccountId, symbol: 'MSFT', qty: '2', reason: 'mint' as const, idempotencyKey: `there-${index}` }
      : { fromAccount: issuerAccountId, toAccount: accountId, symbol: 'MSFT', qty: '1', reason: 'redeem' as const, idempotencyKey: `back-${index}` },
  );
  const totalBefore = new Decimal(await position(database.db, accountId, 'MSFT')).plus(await position(database.db, issuerAccountId, 'MSFT'));
  await Promise.all(movements.map(move));
  const totalAfter = new Decimal(await position(database.db, accountId, 'MSFT')).plus(await position(database.db, issuerAccountId, 'MSFT'));
  expect(totalAfter.toFixed(9)).toBe(totalBefore.toFixed(9));
  expect(new Decimal(await position(database.db, issuerAccountId, 'MSFT')).gte(0)).toBe(true);
});

it('refuses a withdrawal from a symbol the account never held', async () => {
  expect(await move({ fromAccount: accountId, toAccount: issuerAccountId, symbol: 'ZZZZ', qty: '1', reason: 'mint', idempotencyKey: 'never-held' })).toEqual({
    outcome: 'insufficient',
    available: '0',
  });
  const { rows } = await database.db.query(`SELECT count(*)::int AS n FROM broker.journal WHERE idempotency_key = 'never-held'`);
  expect(rows[0].n).toBe(0);
});

it('has the database refuse a negative position and a non-positive movement', async () => {
  await expect(database.db.query(`UPDATE broker.positions SET qty = -1 WHERE account_id = $1 AND symbol = 'AAPL'`, [accountId])).rejects.toThrow(/positions_qty_check/);
  await expect(
    database.db.query(`INSERT INTO broker.journal (to_account, symbol, qty, reason, idempotency_key) VALUES ($1, 'AAPL', 0, 'deposit', 'zero')`, [accountId]),
  ).rejects.toThrow(/journal_qty_check/);
});

it('migrates once, even when started concurrently', async () => {
  const migrateBroker = (db: typeof database.db) => applyMigrations(db, BROKER_MIGRATIONS);
  const results = await Promise.all([migrateBroker(database.db), migrateBroker(database.db), migrateBroker(database.db)]);
  expect(results).toEqual([[], [], []]);
  const fresh = await createBrokerTestDb();
  try {
    const concurrent = await Promise.all([migrateBroker(fresh.db), migrateBroker(fresh.db)]);
    expect(concurrent.flat()).toEqual(['001_sandbox.sql', '002_trading.sql']);
  } finally {
    await fresh.drop();
  }
});

it('seeds idempotently, leaves positions as the flow left them, and tops them back up through the journal when asked', async () => {
  const fresh = await createBrokerTestDb();
  try {
    const credential = newBrokerCredential();
    const first = await seedBrokerSandbox(fresh.db, { brokerCredential: credential });
    expect(first.accounts).toHaveLength(1);
    const [account] = first.accounts;
    expect(account!.accountId).toBe(sandboxAccountId('SBX-000001'));
    expect(account!.positions).toEqual({ AAPL: '1000', AMZN: '1000', MSFT: '1000', NVDA: '1000', TSLA: '1000' });
    const second = await seedBrokerSandbox(fresh.db, { brokerCredential: credential });
    expect(second).toEqual(first);
    const { rows: journalCount } = await fresh.db.query('SELECT count(*)::int AS n FROM broker.journal');
    expect(journalCount[0].n).toBe(5);

    await fresh.db.query(`UPDATE broker.positions SET qty = 400 WHERE account_id = $1 AND symbol = 'AAPL'`, [account!.accountId]);
    const restarted = await seedBrokerSandbox(fresh.db, { brokerCredential: credential });
    expect(restarted.accounts[0]!.positions.AAPL).toBe('400');
    const third = await seedBrokerSandbox(fresh.db, { brokerCredential: credential, topUp: true });
    expect(third.accounts[0]!.positions.AAPL).toBe('1000');
    const { rows } = await fresh.db.query(`SELECT qty::text AS qty FROM broker.journal WHERE to_account = $1 AND symbol = 'AAPL' ORDER BY journal_id`, [account!.accountId]);
    expect(rows.map((row) => row.qty)).toEqual(['1000.000000000', '600.000000000']);
  } finally {
    await fresh.drop();
  }
});
