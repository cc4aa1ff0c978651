/**
 * Every string field of every sandbox route — path parameters, query parameters and JSON body fields — sent a NUL
 * character, a lone surrogate and an over-long value, with the credential the route takes and the other fields valid:
 * never a 5xx. Text PostgreSQL cannot store is a 400 in the sandbox's error shape and writes nothing. The table of
 * routes below is checked against the sandbox's router, so a new route must be added to it.
 */
import pino from 'pino';
import request from 'supertest';
import type { Pool } from 'pg';
import { brokerRouter } from '../../broker/routes/router';
import type { BrokerServices } from '../../broker/services';
import { basic, CLIENT_ID, ISSUER_ID, sandboxForThisFile, tableCounts, WALLET, type BrokerTestDb, type TestSandbox } from './support';

type Who = 'participant' | 'issuer';
interface Route {
  method: 'get' | 'put' | 'post';
  /** With `:name` placeholders, as the router writes it (under /v1/accounts). */
  path: string;
  who: Who;
  params: string[];
  query?: Record<string, string>;
  body?: () => Record<string, unknown>;
}

const TX_HASH = `0x${'ab'.repeat(32)}`;
const UUID = '00000000-0000-4000-8000-000000000000';

const ROUTES: Route[] = [
  { method: 'get', path: '/:account_id', who: 'participant', params: ['account_id'] },
  { method: 'put', path: '/:account_id/tokenization/client', who: 'participant', params: ['account_id'], body: () => ({ client_id: CLIENT_ID }) },
  { method: 'post', path: '/:account_id/tokenization/connect', who: 'participant', params: ['account_id'], body: () => ({ issuer: ISSUER_ID }) },
  {
    method: 'post',
    path: '/:account_id/tokenization/mint',
    who: 'participant',
    params: ['account_id'],
    body: () => ({ underlying_symbol: 'AAPL', qty: '1', issuer: ISSUER_ID, network: 'ethereum', wallet_address: WALLET, client_request_id: 'mine-1' }),
  },
  {
    method: 'get',
    path: '/:account_id/tokenization/requests',
    who: 'participant',
    params: ['account_id'],
    query: { status: 'pending', type: 'mint', issuer_request_id: 'ir-1', limit: '10' },
  },
  { method: 'get', path: '/:account_id/tokenization/requests/:tokenization_request_id', who: 'participant', params: ['account_id', 'tokenization_request_id'] },
  {
    method: 'post',
    path: '/:account_id/tokenization/callback/mint',
    who: 'issuer',
    params: ['account_id'],
    body: () => ({ tokenization_request_id: UUID, client_id: CLIENT_ID, wallet_address: WALLET, tx_hash: TX_HASH, network: 'ethereum' }),
  },
  {
    method: 'post',
    path: '/:account_id/tokenization/callback/redeem',
    who: 'issuer',
    params: ['account_id'],
    body: () => ({
      issuer_request_id: 'redemption-string-fields',
      underlying_symbol: 'AAPL',
      token_symbol: 'AAPLon',
      client_id: CLIENT_ID,
      qty: '1',
      network: 'ethereum',
      wallet_address: WALLET,
      tx_hash: TX_HASH,
    }),
  },
];

const PROBES = {
  nul: { json: 'AAPL\u0000x', url: 'AAPL%00x' },
  loneSurrogate: { json: 'AAPL\ud800x', url: 'AAPL%ED%A0%80x' },
  overLong: { json: 'A'.repeat(20_000), url: 'A'.repeat(4_000) },
} as const;
type ProbeName = keyof typeof PROBES;

interface Case {
  name: string;
  route: Route;
  probe: ProbeName;
  field: string;
  url: (ids: Record<string, string>) => string;
  body?: Record<string, unknown>;
}

const CASES: Case[] = ROUTES.flatMap((route) =>
  (Object.keys(PROBES) as ProbeName[]).flatMap((probe) => {
    const url = (probed: string | undefined) => (ids: Record<string, string>) => {
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => (name === probed ? PROBES[probe].url : ids[name]!));
      const query = Object.entries(route.query ?? {}).map(([name, value]) => `${name}=${name === probed ? PROBES[probe].url : encodeURIComponent(value)}`);
      return `/v1/accounts${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
    };
    const label = `${route.method.toUpperCase()} ${route.path}`;
    return [
      ...[...route.params, ...Object.keys(route.query ?? {})].map((name) => ({ name: `${label} ${name}: ${probe}`, route, probe, field: name, url: url(name), body: route.body?.() })),
      ...Object.keys(route.body?.() ?? {}).map((name) => ({
        name: `${label} body ${name}: ${probe}`,
        route,
        probe,
        field: name,
        url: url(undefined),
        body: { ...route.body!(), [name]: PROBES[probe].json },
      })),
    ];
  }),
);

let database: BrokerTestDb;
let sandbox: TestSandbox;

sandboxForThisFile((started) => ({ database, sandbox } = started));

function ids(route: Route): Record<string, string> {
  return { account_id: route.who === 'issuer' ? sandbox.issuerAccountId : sandbox.accountId, tokenization_request_id: UUID };
}

async function send(item: Case): Promise<{ status: number; body: Record<string, unknown> }> {
  const credential = item.route.who === 'issuer' ? sandbox.issuerCredential : sandbox.participant;
  let call = request(sandbox.broker.url)[item.route.method](item.url(ids(item.route))).set('authorization', basic(credential)).timeout({ response: 10_000 });
  if (item.body) call = call.set('content-type', 'application/json').send(JSON.stringify(item.body));
  const response = await call;
  return { status: response.status, body: response.body as Record<string, unknown> };
}

test("the table lists every route of the sandbox's router", () => {
  const router = brokerRouter({ db: {} as Pool, logger: pino({ level: 'silent' }) } as BrokerServices, async (_ctx, next) => next());
  const served = router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/^\/v1\/accounts/, '')}`));
  expect(served.sort()).toEqual(ROUTES.map((route) => `${route.method.toUpperCase()} ${route.path}`).sort());
});

describe('text PostgreSQL cannot store is a 400 in the error shape, and nothing is written', () => {
  const before: { counts?: Record<string, number> } = {};
  beforeAll(async () => {
    before.counts = await tableCounts(database.db);
  });

  const refusable = CASES.filter((item) => item.probe === 'nul' || (item.probe === 'loneSurrogate' && item.body !== undefined && !item.url({}).includes('%ED%A0%80')));
  test.each(refusable.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await send(item);
    expect([item.name, response.status]).toEqual([item.name, 400]);
    expect(response.body).toEqual({ code: expect.stringMatching(/^[A-Z_]+$/), message: expect.stringContaining(item.field), documentation: expect.stringContaining('/docs/errors#') });
    expect(response.body.message).toMatch(item.probe === 'nul' ? /NUL/ : /lone surrogate/);
  });

  test('no table gained a row', async () => {
    expect(await tableCounts(database.db)).toEqual(before.counts);
  });
});

describe('an over-long value, or a lone surrogate in a URL, is never a 5xx', () => {
  const rest = CASES.filter((item) => item.probe === 'overLong' || (item.probe === 'loneSurrogate' && (item.body === undefined || item.url({}).includes('%ED%A0%80'))));
  test.each(rest.map((item) => [item.name, item] as const))('%s', async (_name, item) => {
    const response = await send(item);
    expect([item.name, response.status < 500]).toEqual([item.name, true]);
    if (response.status === 400) expect(response.body.message).not.toMatch(/must be a string$|Too big/);
  });
});
