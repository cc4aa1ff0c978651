/**
 * The sandbox while its PostgreSQL is gone (stopped, as a restart stops it; the embedded server listens on a Unix
 * socket, which goes with it): every route answers 503 SERVICE_UNAVAILABLE with `Retry-After`, as the issuer's API
 * does, never 500; its request processor and order filler say once that they wait for the database, not at every
 * pass; it stops without the database (its leases run out). Found by the fault campaign, where a PostgreSQL restart
 * made the sandbox answer 500 and log an error each tenth of a second.
 */
import pino from 'pino';
import request from 'supertest';
import { startTestDatabase, type TestDatabase } from '../../harness/database';
import { createPool, type Database } from '../../db/pool';
import { basic, startTestSandbox, WALLET, ISSUER_ID, type TestSandbox } from './support';

jest.setTimeout(120_000);

interface LogLine {
  level: number;
  msg: string;
}

let server: TestDatabase | undefined;
let pool: Database | undefined;
let sandbox: TestSandbox | undefined;
const logs: LogLine[] = [];

beforeAll(async () => {
  server = await startTestDatabase();
  pool = createPool(server.url, 5);
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line) as LogLine) });
  sandbox = await startTestSandbox(pool, { logger });
  await server.stop();
});

let closed = false;
afterAll(async () => {
  if (!closed) await sandbox?.close();
  await pool?.end();
  await server?.stop().catch(() => undefined);
});

test('a read and a mint while the database is gone are 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
  const http = request(sandbox!.broker.url);
  const answers = [
    await http.get(`/v1/accounts/${sandbox!.accountId}/tokenization/requests`).set('authorization', basic(sandbox!.participant)),
    await http
      .post(`/v1/accounts/${sandbox!.accountId}/tokenization/mint`)
      .set('authorization', basic(sandbox!.participant))
      .set('idempotency-key', 'while-down-1')
      .send({ underlying_symbol: 'AAPL', qty: '1', issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET }),
  ];
  for (const answer of answers) {
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.body).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database cannot be reached; retry shortly',
      documentation: `${sandbox!.broker.url}/docs/errors#service_unavailable`,
    });
  }
});

test('the processor and the filler report the outage once each, and no pass as failed', async () => {
  // pollMs is 50 here: a second is some twenty passes of each loop.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const paused = logs.filter((line) => line.msg.includes('paused: the database cannot be reached')).map((line) => line.msg.split(' paused')[0]);
  expect(paused.sort()).toEqual(['broker processor', 'order filler']);
  expect(logs.filter((line) => line.level >= 50)).toEqual([]);
});

test('it stops while the database is gone', async () => {
  await sandbox!.close();
  closed = true;
  expect(logs.filter((line) => line.level >= 50)).toEqual([]);
});
