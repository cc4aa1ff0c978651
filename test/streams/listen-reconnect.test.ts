/**
 * The LISTEN connection of db/listen.ts while PostgreSQL cannot be reached behind a TCP front (a pooler or load
 * balancer that accepts the connection and closes it, as the campaign's link proxy does): one reconnection loop, never
 * more, so it neither floods the server with connection attempts nor comes back as several listeners delivering each
 * notification several times. Found by the fault campaign: a PostgreSQL restart made one API open thousands of
 * connections within seconds — each refused attempt started two retries, its connect failure and its connection's
 * `end` (emitted before the failure reaches the caller) each scheduling one. On a real PostgreSQL, through the
 * campaign's link proxy (campaign/fault-proxy.ts) cutting every connection for three seconds.
 */
import { startLinkProxy, type LinkProxy } from '../../campaign/fault-proxy';
import { seededRandom } from '../../campaign/random';
import { listenOnChannel, type ChannelListener } from '../../db/listen';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { eventually } from '../support/eventually';

let database: TestDb;
let proxy: LinkProxy;
let listener: ChannelListener | undefined;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  const url = new URL(database.url);
  proxy = await startLinkProxy({ name: 'listener→postgresql', target: { host: '127.0.0.1', port: Number(url.port || 5432) }, random: seededRandom(1) });
});

afterAll(async () => {
  await listener?.stop();
  await proxy?.stop();
  await database?.drop();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a listener cut off for a while reconnects through one loop, and then hears each notification once', async () => {
  const url = new URL(database.url);
  url.host = `127.0.0.1:${proxy.port}`;
  const payloads: string[] = [];
  let lost = 0;
  let reconnected = 0;
  listener = await listenOnChannel(url.toString(), 'listen_reconnect_test', {
    onPayload: (payload) => payloads.push(payload),
    onConnectionLost: () => lost++,
    onReconnected: () => reconnected++,
    maxRetryMs: 200,
  });

  // Every connection cut, the open one within a second and each new one at once, for three seconds.
  proxy.set({ dropRate: 1 });
  await eventually(async () => expect(lost).toBeGreaterThan(0), 10_000);
  await pause(3_000);
  proxy.set(undefined);

  await eventually(async () => expect(reconnected).toBeGreaterThan(0), 10_000);
  await pause(1_500); // time for any other loop to come back too
  const { rows } = await database.db.query<{ listeners: number }>(
    `SELECT count(*)::int AS listeners FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND state = 'idle'`,
  );
  expect({ lost, reconnected, listeners: rows[0]!.listeners }).toEqual({ lost: 1, reconnected: 1, listeners: 1 });
  await database.db.query(`NOTIFY listen_reconnect_test, 'once'`);
  await eventually(async () => expect(payloads).toEqual(['once']), 5_000);
  await pause(500);
  expect(payloads).toEqual(['once']);
});
