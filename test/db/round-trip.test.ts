/**
 * Several statements in one round trip (db/round-trip.ts), on a PostgreSQL of its own: values written as literals
 * arrive unchanged whatever they hold, a statement is prepared once per connection (and again once the connection has
 * lost it), and the first failing statement stops the ones after it.
 */
import type { PoolClient } from 'pg';
import { startTestDatabase, type TestDatabase } from '../../harness/database';
import { createPool, type Database } from '../../db/pool';
import { inOneRoundTrip, sqlLiteral, type PreparedStatement } from '../../db/round-trip';

jest.setTimeout(120_000);

let server: TestDatabase;
let pool: Database;
let client: PoolClient;
beforeAll(async () => {
  server = await startTestDatabase();
  pool = createPool(server.url, 2);
  client = await pool.connect();
  await client.query('CREATE TABLE notes (id int PRIMARY KEY, body text, amount numeric, at bigint)');
});
afterAll(async () => {
  client?.release();
  await pool?.end();
  await server?.stop();
});

const ECHO: PreparedStatement = { name: 'echo_note', text: 'SELECT $1::text AS body, $2::numeric::text AS amount, $3::bigint AS at' };
const STORE: PreparedStatement = { name: 'store_note', text: 'INSERT INTO notes (id, body, amount, at) VALUES ($1, $2, $3, $4)' };

test('values written as literals arrive as they were sent', async () => {
  const bodies = [`it's`, `back\\slash`, `'); DROP TABLE notes; --`, `dollar $$ quoted $1`, 'unicode ✓ 株', '', '\n\t'];
  for (const body of bodies) {
    const [rows] = await inOneRoundTrip(client, [{ prepared: ECHO, values: [body, '12345678901234567890.000001', 1_790_000_000_000] }]);
    expect(rows).toEqual([{ body, amount: '12345678901234567890.000001', at: 1_790_000_000_000 }]);
  }
  expect((await inOneRoundTrip(client, [{ prepared: ECHO, values: [null, null, null] }]))[0]).toEqual([{ body: null, amount: null, at: null }]);
  expect(() => sqlLiteral(Number.NaN)).toThrow('cannot be written into SQL');
  expect(() => sqlLiteral(Number.POSITIVE_INFINITY)).toThrow('cannot be written into SQL');
});

test('each statement answers its rows, in order, and a prepared statement is prepared once per connection', async () => {
  const results = await inOneRoundTrip(client, [
    'BEGIN',
    { prepared: STORE, values: [1, 'first', '1.5', 10] },
    { prepared: STORE, values: [2, 'second', '2.5', 20] },
    'SELECT count(*)::int AS n FROM notes',
    'COMMIT',
  ]);
  expect(results).toEqual([[], [], [], [{ n: 2 }], []]);
  const { rows } = await client.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE from_sql ORDER BY name`);
  expect(rows.map((row) => row.name)).toEqual(['echo_note', 'store_note']);

  // Another connection prepares for itself.
  const other = await pool.connect();
  try {
    expect(await inOneRoundTrip(other, [{ prepared: ECHO, values: ['other', '1', 1] }])).toEqual([[{ body: 'other', amount: '1', at: 1 }]]);
  } finally {
    other.release();
  }
});

test('the first statement that fails stops the rest of the round trip', async () => {
  await expect(
    inOneRoundTrip(client, ['BEGIN', { prepared: STORE, values: [1, 'again', '0', 0] }, { prepared: STORE, values: [3, 'third', '3', 30] }, 'COMMIT']),
  ).rejects.toMatchObject({ code: '23505' });
  await client.query('ROLLBACK');
  const { rows } = await client.query<{ id: number }>('SELECT id FROM notes ORDER BY id');
  expect(rows.map((row) => row.id)).toEqual([1, 2]);
  // The statements stay prepared on the connection after its transaction was rolled back.
  expect(await inOneRoundTrip(client, [{ prepared: STORE, values: [3, 'third', '3', 30] }])).toEqual([[]]);
});

test('a connection that lost its prepared statements fails one round trip, then prepares them again', async () => {
  await client.query('DEALLOCATE ALL');
  await expect(inOneRoundTrip(client, [{ prepared: ECHO, values: ['lost', '1', 1] }])).rejects.toMatchObject({ code: '26000' });
  expect(await inOneRoundTrip(client, [{ prepared: ECHO, values: ['found', '1', 1] }])).toEqual([[{ body: 'found', amount: '1', at: 1 }]]);
});
