/**
 * The product's pool (db/pool.ts) on a PostgreSQL of its own: `end()` resolves once its connections are closed —
 * their sessions gone from the server — so a server stopped right after (`npm start` stopping its embedded
 * PostgreSQL) has none of them left to end, and the pool reports no failed idle connection. An idle connection the
 * server does end is reported as an error of its own, not with the whole client hung on it (what a log would print).
 * A connection the server ends while it is checked out (a transaction between two statements) fails its holder's
 * queries as the database being unreachable, not the process, and the pool carries on with a new one. A server
 * that stopped took its Unix socket with it: a connect finding no socket is the database being unreachable too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startTestDatabase, type TestDatabase } from '../../harness/database';
import { createPool, inTransaction, isDatabaseUnreachable } from '../../db/pool';
import { eventually } from '../support/eventually';

jest.setTimeout(120_000);

let server: TestDatabase | undefined;
beforeAll(async () => {
  server = await startTestDatabase();
});
afterAll(async () => {
  await server?.stop();
});

test('an idle connection the server ends is reported without its client', async () => {
  const idleErrors: Error[] = [];
  const pool = createPool(server!.url, 2, (error) => idleErrors.push(error));
  const other = new Client({ connectionString: server!.url });
  await other.connect();
  try {
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    await eventually(async () => expect(idleErrors).toEqual([expect.objectContaining({ code: '57P01' })]));
    expect(Object.keys(idleErrors[0]!)).not.toContain('client');
  } finally {
    await other.end();
    await pool.end();
  }
});

test('a connection the server ends while it is checked out fails its holder, not the process; the pool carries on', async () => {
  const pool = createPool(server!.url, 2);
  const other = new Client({ connectionString: server!.url });
  await other.connect();
  try {
    const failure = await inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await other.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // Checked out and between two statements when its server process goes: pg emits 'error' on the client.
      await eventually(async () => expect((await other.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid])).rowCount).toBe(0));
      await client.query('SELECT 1');
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDatabaseUnreachable(failure)).toBe(true);
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await other.end();
    await pool.end();
  }
});

test('a server gone with its Unix socket (stopped, restarting) is unreachable; a missing file is not', async () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'no-server-'));
  const pool = createPool(`postgres://postgres:postgres@${encodeURIComponent(directory)}:5432/issuer`, 1);
  try {
    const failure = await pool.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'ENOENT', syscall: 'connect' });
    expect(isDatabaseUnreachable(failure)).toBe(true);
    const missingFile = await readFile(path.join(directory, 'absent')).catch((error: unknown) => error);
    expect(isDatabaseUnreachable(missingFile)).toBe(false);
  } finally {
    await pool.end();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('end() resolves once every connection is closed; the server stopped at once finds none', async () => {
  const url = server!.url;
  const idleErrors: Error[] = [];
  const observer = new Client({ connectionString: url });
  await observer.connect();
  try {
    for (let round = 0; round < 5; round++) {
      const pool = createPool(url, 10, (error) => idleErrors.push(error));
      // Ten connections at once, each naming its session.
      const sessions = await Promise.all(Array.from({ length: 10 }, () => pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')));
      const pids = sessions.map((result) => result.rows[0]!.pid);
      expect(new Set(pids).size).toBe(10);
      await pool.end();
      const { rows } = await observer.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
      expect(rows).toEqual([]);
    }
    // Once more, and the server stopped the moment the pool has ended.
    const pool = createPool(url, 10, (error) => idleErrors.push(error));
    await Promise.all(Array.from({ length: 10 }, () => pool.query('SELECT pg_sleep(0.05)')));
    await pool.end();
  } finally {
    await observer.end();
  }
  await server!.stop();
  server = undefined;
  expect(idleErrors).toEqual([]);
});
