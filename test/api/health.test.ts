/**
 * GET /health and GET /ready, and what every route answers while PostgreSQL is unreachable: the app talks to its
 * database through a TCP proxy the test cuts and restores, so the server really is gone and really comes back.
 */
import net from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { CHANGE_TOPICS, listenForChanges, publishChange, type ChangeTopic } from '../../db/changes';
import { createPool } from '../../db/pool';
import { startInMemoryTemporal, type InMemoryTemporal } from '../../temporal-server';
import { postgresSocketPath } from '../../db/embedded';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { createTestApi, TEST_BASE_URL, type TestApi } from '../support/api';

/**
 * A TCP proxy to `target` (a host and port, or a Unix socket's path) that can drop every connection and refuse new
 * ones, then listen again on its port.
 */
async function startProxy(target: { host: string; port: number } | { path: string }) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    restore: () => listen(port),
    stop: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

let clone: TestDb;
let proxy: Awaited<ReturnType<typeof startProxy>>;
/** The clone's URL through the proxy. */
let proxiedUrl: string;
let api: TestApi;
let temporal: InMemoryTemporal;
let temporalClient: Client;

beforeAll(async () => {
  clone = await cloneTemplateDatabase();
  const url = new URL(clone.url);
  // The embedded server is reached through its Unix socket (the URL's host its directory), else over TCP.
  const host = decodeURIComponent(url.hostname);
  proxy = await startProxy(host.startsWith('/') ? { path: postgresSocketPath(host, url.port) } : { host, port: Number(url.port) });
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  proxiedUrl = url.toString();
  const db = createPool(proxiedUrl, 4);
  temporal = await startInMemoryTemporal();
  temporalClient = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: temporal.namespace });
  api = await createTestApi({ database: { db, url: proxiedUrl, drop: () => db.end() }, temporal: temporalClient });
});
afterAll(async () => {
  await api.close();
  await proxy.stop();
  await clone.drop();
  await temporalClient.connection.close();
  await temporal.stop();
});

test('/health answers without a key', async () => {
  const response = await api.http.get('/health');
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ status: 'ok' });
});

test('/ready answers without a key and names the state of PostgreSQL and Temporal', async () => {
  const response = await api.http.get('/ready');
  expect(response.status).toBe(200);
  expect(response.body).toEqual({
    status: 'ready',
    checks: { postgres: { status: 'up', latencyMs: expect.any(Number) }, temporal: { status: 'up', latencyMs: expect.any(Number) } },
  });
});

test('a registered probe that fails makes /ready 503 and says which', async () => {
  api.app.services.readinessChecks = { 'chain ethereum-1': () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:8545')) };
  try {
    const response = await api.http.get('/ready');
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body.status).toBe('not ready');
    expect(response.body.checks['chain ethereum-1']).toEqual({ status: 'down', error: 'unreachable' });
    expect(response.body.checks.postgres.status).toBe('up');
    expect(response.text).not.toContain('10.0.0.1');
  } finally {
    api.app.services.readinessChecks = undefined;
  }
});

test('with PostgreSQL gone: routes answer 503 SERVICE_UNAVAILABLE with Retry-After, /ready is 503, /health 200; all recover when it returns', async () => {
  expect((await api.http.get('/v1/tickers').set('x-api-key', api.keys.read)).status).toBe(200);
  await proxy.cut();
  try {
    for (const [path, key] of [
      ['/v1/tickers', api.keys.read],
      ['/v1/assets/AAPLon/market', api.keys.read],
      ['/v1/status/market', api.keys.admin],
    ] as const) {
      const response = await api.http.get(path).set('x-api-key', key);
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.any(String),
        documentation: `${TEST_BASE_URL}/docs/errors#service_unavailable`,
      });
    }
    const ready = await api.http.get('/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.postgres).toEqual({ status: 'down', error: 'unreachable' });
    expect(ready.body.checks.temporal.status).toBe('up');
    expect((await api.http.get('/health')).status).toBe(200);
  } finally {
    await proxy.restore();
  }
  expect((await api.http.get('/ready')).status).toBe(200);
  const tickers = await api.http.get('/v1/tickers').set('x-api-key', api.keys.read);
  expect(tickers.status).toBe(200);
});

test('the change listener reconnects after the database comes back and drops every cached topic, then hears new changes', async () => {
  const heard: ChangeTopic[] = [];
  const listener = await listenForChanges(proxiedUrl, (topic) => heard.push(topic), { maxRetryMs: 200 });
  try {
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await proxy.restore();
    await waitFor(() => CHANGE_TOPICS.every((topic) => heard.includes(topic)));
    heard.length = 0;
    await publishChange(clone.db, 'status');
    await waitFor(() => heard.includes('status'));
    expect(heard).toEqual(['status']);
  } finally {
    await listener.stop();
  }
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
