/**
 * The compatibility suite: a client written to the reference issuer's published REST interface, calling the real app
 * on real PostgreSQL (and a local anvil chain for the chain reads). Every answer of the twenty operations we share
 * with the reference is checked against JSON Schemas written from the reference's own pages (test/compat/reference/,
 * each naming the page it comes from and any deviation our specification decides), and every error code and status
 * the reference lists for an operation that we produce is provoked and checked: status, code and the ErrorResponse
 * shape. Answers that depend on the session are taken at pinned instants, an open and a closed one. The streaming
 * half — the published proto loaded as published, its four calls and their status codes — is
 * test/streams/reference-grpc.test.ts.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import type { Response } from 'supertest';
import { createWalletClient, http, keccak256, parseUnits, stringToHex } from 'viem';
import { createChainWatcherActivities, type ScanChainResult } from '../../activities/chain-watcher';
import { viemChain } from '../../chains/networks';
import { stockTokenAbi } from '../../contracts/abi';
import { chainTokenAddresses } from '../../db/queries/chain-deployments';
import { createApiKey } from '../../db/queries/api-keys';
import { newYorkTime } from '../../domain/calendar';
import { CATALOGUE } from '../../domain/catalogue';
import { Decimal } from '../../domain/money';
import { createTestApi, type TestApi } from '../support/api';
import { startTestChain, type TestChain } from '../support/chains';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { ATTESTATION, complaints, SHARED } from './reference-schemas';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const TUESDAY_11PM = newYorkTime('2026-11-24', '23:00');
const SATURDAY_NOON = newYorkTime('2026-11-28', '12:00');
const SOLANA_GENESIS = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const SOLANA_WALLET = 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9';

/** A 200 whose body the reference's schema for the operation accepts. */
function expectAnswer(response: Response, schema: string): void {
  expect({ status: response.status, body: response.status === 200 ? '' : response.body }).toEqual({ status: 200, body: '' });
  expect(complaints(schema, response.body)).toBe('');
}

/** A refusal with the reference's status and code, in its ErrorResponse shape. */
function expectRefusal(response: Response, status: number, code: string): void {
  expect([response.status, response.body.code]).toEqual([status, code]);
  expect(complaints('error-response', response.body)).toBe('');
}

let api: TestApi;
const get = (url: string, key: string | null = api.keys.read) => (key === null ? api.http.get(url) : api.http.get(url).set('x-api-key', key));
const post = (url: string, body: object, key: string | null = api.keys.write) =>
  key === null ? api.http.post(url).send(body) : api.http.post(url).set('x-api-key', key).send(body);
const admin = (url: string, body?: object) => api.http.post(url).set('x-api-key', api.keys.admin).send(body);
const setLimit = (symbol: string, session: string, count: number, active: string, perSession = '10000000') =>
  api.db.query('UPDATE session_limits SET max_attestation_count = $3, max_active_notional_value = $4, max_session_notional_value = $5 WHERE symbol = $1 AND session = $2', [
    symbol, session, count, active, perSession,
  ]);

/** One app for every test of the block, its clock at `now`: for tests that change nothing the others read. */
function oneApiAt(now: number): void {
  beforeAll(async () => {
    api = await createTestApi();
    await api.tradeAt(now);
  });
  afterAll(() => api.close());
}

/** A fresh app on a fresh database for each test of the block, its clock at `now`. */
function freshApiAt(now: number): void {
  beforeEach(async () => {
    api = await createTestApi();
    await api.tradeAt(now);
  });
  afterEach(() => api.close());
}

describe('every answer of every shared operation, in an open session (a Monday, 10:00 New York)', () => {
  oneApiAt(MONDAY_10AM);

  test.each(SHARED.filter((operation) => !operation.onChain).map((operation) => [operation.name, operation] as const))('%s', async (_name, operation) => {
    const response = operation.method === 'get' ? await get(operation.url) : await post(operation.url, operation.body!);
    expectAnswer(response, operation.schema);
  });

  test('the market is open, nothing closed in the reason', async () => {
    const status = (await get('/v1/status/market')).body;
    expect(complaints('market-status', status)).toBe('');
    expect(status).toMatchObject({ isOpen: true, marketStatus: 'regular', nextOpenSession: 'postmarket' });
    expect(Date.parse(status.timestamp)).toBe(MONDAY_10AM);
  });

  test.each(CATALOGUE.map((asset) => asset.symbol))('every per-symbol read of %s in the reference’s shape', async (symbol) => {
    const reads = {
      [`/v1/assets/${symbol}/prices/latest`]: 'asset-price-latest',
      [`/v1/assets/${symbol}/market`]: 'asset-market',
      [`/v1/assets/${symbol}/dividends`]: 'dividends',
      [`/v1/assets/${symbol}/addresses`]: 'asset-addresses',
      [`/v1/assets/${symbol}/shares-multiplier?range=all`]: 'shares-multiplier',
      [`/v1/assets/${symbol}/prices/ohlc?interval=1day&range=all`]: 'ohlc',
      [`/v1/limits/trading?symbol=${symbol}&side=sell`]: 'trading-limits',
      [`/v1/limits/session?symbol=${symbol}`]: 'session-limits',
    };
    const found: Record<string, string> = {};
    for (const [url, schema] of Object.entries(reads)) {
      const response = await get(url);
      found[url] = response.status === 200 ? complaints(schema, response.body) : `answered ${response.status} ${JSON.stringify(response.body)}`;
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(reads).map((url) => [url, ''])));
  });

  test('a symbol-filtered session limit is the same array of one object, for that symbol', async () => {
    const response = await get('/v1/limits/session?symbol=TSLAon');
    expectAnswer(response, 'session-limits');
    expect(response.body[0].limits.map((entry: { symbol: string }) => entry.symbol)).toEqual(['TSLAon']);
  });

  test('every OHLC interval/range pair the reference documents answers in its shape', async () => {
    for (const pair of ['1min/1day', '5min/1day', '15min/1day', '1hour/1month', '4hour/1month', '12hour/3month', '1day/3month', '1day/6month', '1day/1year', '1day/all']) {
      const [interval, range] = pair.split('/');
      const response = await get(`/v1/assets/NVDAon/prices/ohlc?interval=${interval}&range=${range}`);
      expectAnswer(response, 'ohlc');
      expect([response.body.interval, response.body.range]).toEqual([interval, range]);
    }
  });
});

describe('operator controls in an open session', () => {
  freshApiAt(MONDAY_10AM);

  test('asset statuses with the reference’s reasons: a pause, a limit, a scheduled window ahead', async () => {
    expect((await admin('/v1/status/assets/TSLAon/pause', { reason: 'maintenance' })).status).toBe(201);
    expect((await admin('/v1/status/assets/NVDAon/limit', { reason: 'earnings' })).status).toBe(201);
    const window = { symbol: 'AAPLon', code: 'ASSET_PAUSED', reason: 'cash_dividend', start: MONDAY_10AM + 86_400_000, end: MONDAY_10AM + 87_600_000 };
    expect((await admin('/v1/status/assets/events', window)).status).toBe(201);
    const response = await get('/v1/status/assets');
    expectAnswer(response, 'asset-statuses');
    expect(response.body.map((status: { symbol: string; status: string; reason: { code: string } }) => [status.symbol, status.status, status.reason.code]).sort()).toEqual([
      ['AAPLon', 'upcoming', 'ASSET_PAUSED'],
      ['NVDAon', 'active', 'ASSET_LIMITED'],
      ['TSLAon', 'active', 'ASSET_PAUSED'],
    ]);
  });

  test('a redeem-only asset (an operator event) in the asset statuses, with a reason code the reference has', async () => {
    const event = { symbol: 'AAPLon', code: 'ASSET_REDEEM_ONLY', reason: 'merger', start: MONDAY_10AM - 60_000, end: MONDAY_10AM + 3_600_000 };
    expect((await admin('/v1/status/assets/events', event)).status).toBe(201);
    const response = await get('/v1/status/assets');
    expect(response.body).toMatchObject([{ symbol: 'AAPLon', reason: { code: 'ASSET_LIMITED' }, redeemOnly: true }]);
    expectAnswer(response, 'asset-statuses');
  });

  test('an operator pause: trading limits closed with MARKET_PAUSED, the market paused', async () => {
    await admin('/v1/status/market/pause', { reason: 'exchange outage' });
    const limits = await get('/v1/limits/trading?symbol=AAPLon&side=sell');
    expectAnswer(limits, 'trading-limits');
    expect(limits.body).toMatchObject({ isAssetTradingOpen: false, reason: { code: 'MARKET_PAUSED' } });
    const status = await get('/v1/status/market');
    expectAnswer(status, 'market-status');
    expect(status.body).toMatchObject({ isOpen: false, marketStatus: 'paused', reason: { code: 'MARKET_PAUSED' } });
  });
});

describe('requests as the reference documents them', () => {
  freshApiAt(MONDAY_10AM);

  test('both attestation bodies (by token amount, by notional value), on each chain spelling the reference uses for Solana', async () => {
    expectAnswer(await post('/v1/attestations', { ...ATTESTATION, tokenAmount: undefined, notionalValue: '500.000000000000000000' }), 'create-attestation');
    expectAnswer(await post('/v1/attestations/soft', { chainId: 'bsc-56', symbol: 'AAPLon', side: 'sell', notionalValue: '500' }), 'soft-quote');
    for (const chainId of ['solana-900', SOLANA_GENESIS]) {
      const response = await post('/v1/attestations', { ...ATTESTATION, chainId, userAddress: SOLANA_WALLET });
      expectAnswer(response, 'create-attestation');
      expect(response.body.chainId).toBe('900');
    }
  });

  test('a field the reference’s schema does not name is ignored, not refused', async () => {
    expectAnswer(await post('/v1/attestations', { ...ATTESTATION, clientOrderId: 'abc-1' }), 'create-attestation');
    expectAnswer(await post('/v1/attestations/soft', { ...ATTESTATION, clientOrderId: 'abc-2' }), 'soft-quote');
  });
});

describe('a scheduled transition pause (09:30 New York, between premarket and regular)', () => {
  oneApiAt(newYorkTime('2026-11-23', '09:30'));

  test('the market reads paused, with MARKET_PAUSED, the regular session opening next at 09:31', async () => {
    const response = await get('/v1/status/market');
    expectAnswer(response, 'market-status');
    expect(response.body).toMatchObject({ isOpen: false, marketStatus: 'paused', nextOpenSession: 'regular', reason: { code: 'MARKET_PAUSED' } });
    expect(Date.parse(response.body.nextOpen)).toBe(newYorkTime('2026-11-23', '09:31'));
  });
});

describe('a closed session (a Saturday, noon New York)', () => {
  oneApiAt(SATURDAY_NOON);

  test('every shared read but the market status (the next case) answers in the reference’s shape', async () => {
    for (const operation of SHARED.filter((candidate) => candidate.method === 'get' && !candidate.onChain && candidate.schema !== 'market-status')) {
      expectAnswer(await get(operation.url), operation.schema);
    }
  });

  test('the market status says closed and when it opens again', async () => {
    const response = await get('/v1/status/market');
    expectAnswer(response, 'market-status');
    expect(response.body).toMatchObject({ isOpen: false, marketStatus: 'closed', reason: { code: 'MARKET_CLOSED' } });
    expect(Date.parse(response.body.nextOpen)).toBeGreaterThan(SATURDAY_NOON);
  });

  test('trading limits of an asset that does not trade off-hours: closed, with MARKET_CLOSED (a 200, as our specification says)', async () => {
    const response = await get('/v1/limits/trading?symbol=AAPLon&side=buy');
    expectAnswer(response, 'trading-limits');
    expect(response.body).toMatchObject({ isAssetTradingOpen: false, reason: { code: 'MARKET_CLOSED' } });
  });

  test('an asset that trades off-hours is still attested and quoted', async () => {
    expectAnswer(await post('/v1/attestations', { ...ATTESTATION, symbol: 'SPYon' }), 'create-attestation');
    expectAnswer(await post('/v1/attestations/soft', { ...ATTESTATION, symbol: 'SPYon' }), 'soft-quote');
  });
});

describe('the reference’s refusals of every shared operation', () => {
  oneApiAt(MONDAY_10AM);
  const requestOf = (operation: (typeof SHARED)[number], key: string | null) =>
    operation.method === 'get' ? get(operation.url.replace('{AAPLon}', `0x${'44'.repeat(20)}`), key) : post(operation.url, operation.body!, key);

  test('no key is 401 MISSING_API_KEY; an unknown key and a revoked one are 401 INVALID_API_KEY', async () => {
    const revoked = await createApiKey(api.db, { name: 'compat revoked', scope: 'write' });
    await api.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.key.id]);
    for (const operation of SHARED) {
      expectRefusal(await requestOf(operation, null), 401, 'MISSING_API_KEY');
      expectRefusal(await requestOf(operation, 'isk_write_not-a-key-anyone-was-given'), 401, 'INVALID_API_KEY');
      expectRefusal(await requestOf(operation, revoked.secret), 401, 'INVALID_API_KEY');
    }
  });

  test('a key past its rate limit is 429 RATE_LIMITED', async () => {
    for (const operation of SHARED) {
      // One request a second, no burst beyond it: of a few sent at once, all but the first are refused.
      const key = (await createApiKey(api.db, { name: `compat rate ${operation.name}`, scope: 'write', rateLimitPerSecond: 1, rateLimitBurst: 1 })).secret;
      const answers = await Promise.all([0, 1, 2, 3].map(() => requestOf(operation, key)));
      const refused = answers.filter((response) => response.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      for (const response of refused) expectRefusal(response, 429, 'RATE_LIMITED');
    }
  });

  test.each([
    ['/v1/assets/{symbol}/prices/latest', '/prices/latest'],
    ['/v1/assets/{symbol}/market', '/market'],
    ['/v1/assets/{symbol}/dividends', '/dividends'],
    ['/v1/assets/{symbol}/addresses', '/addresses'],
    ['/v1/assets/{symbol}/prices/ohlc', '/prices/ohlc?interval=1day&range=all'],
    ['/v1/assets/{symbol}/shares-multiplier', '/shares-multiplier?range=all'],
  ])('GET %s: a malformed symbol is 400 INVALID_SYMBOL, an unknown one 404 ASSET_NOT_FOUND', async (_name, rest) => {
    expectRefusal(await get(`/v1/assets/AAPL${rest}`), 400, 'INVALID_SYMBOL');
    expectRefusal(await get(`/v1/assets/ZZZZon${rest}`), 404, 'ASSET_NOT_FOUND');
  });

  test.each([
    ['interval=2hour&range=1day', 'INVALID_INTERVAL'],
    ['interval=1min&range=2month', 'INVALID_RANGE'],
    ['interval=1min&range=1year', 'INVALID_INTERVAL_RANGE_PAIR'],
  ])('GET /v1/assets/{symbol}/prices/ohlc?%s is 400 %s', async (query, code) => {
    expectRefusal(await get(`/v1/assets/AAPLon/prices/ohlc?${query}`), 400, code);
  });

  test('GET /v1/assets/{symbol}/shares-multiplier with a range not the reference’s is 400 INVALID_RANGE', async () => {
    expectRefusal(await get('/v1/assets/AAPLon/shares-multiplier?range=2month'), 400, 'INVALID_RANGE');
  });

  test.each(['/v1/assets/all/prices/latest', '/v1/assets/all/prices/latest/enhanced'])('GET %s with a sort not asc or desc is 400 INVALID_SORT', async (url) => {
    expectRefusal(await get(`${url}?sort=up`), 400, 'INVALID_SORT');
  });

  test.each([
    ['side=buy', 400, 'MISSING_SYMBOL'],
    ['symbol=AAPLon', 400, 'MISSING_SIDE'],
    ['symbol=AAPL&side=buy', 400, 'INVALID_SYMBOL'],
    ['symbol=AAPLon&side=hold', 400, 'INVALID_SIDE'],
  ])('GET /v1/limits/trading?%s is %d %s', async (query, status, code) => {
    expectRefusal(await get(`/v1/limits/trading?${query}`), status, code);
  });

  test('a path no operation has is 404 RESOURCE_NOT_FOUND', async () => {
    expectRefusal(await get('/v1/assets/AAPLon/fundamentals'), 404, 'RESOURCE_NOT_FOUND');
  });

  test('GET /v1/limits/session: a malformed symbol is 400 INVALID_SYMBOL, an unknown one 404 ASSET_NOT_FOUND', async () => {
    expectRefusal(await get('/v1/limits/session?symbol=AAPL'), 400, 'INVALID_SYMBOL');
    expectRefusal(await get('/v1/limits/session?symbol=ZZZZon'), 404, 'ASSET_NOT_FOUND');
  });
});

describe('a server fault', () => {
  freshApiAt(MONDAY_10AM);

  test('an answer the server cannot give is 500 INTERNAL_ERROR', async () => {
    // PostgreSQL's numeric NaN as a stored price: no answer the document allows can carry it.
    await api.db.query(`UPDATE latest_prices SET token_price = 'NaN' WHERE symbol = 'MSFTon'`);
    expectRefusal(await get('/v1/assets/MSFTon/prices/latest'), 500, 'INTERNAL_ERROR');
  });
});

describe.each([
  ['POST /v1/attestations', '/v1/attestations'],
  ['POST /v1/attestations/soft', '/v1/attestations/soft'],
])('%s: the reference’s refusals', (_name, url) => {
  freshApiAt(MONDAY_10AM);
  const { tokenAmount: _amount, ...withoutAmount } = ATTESTATION;
  test.each([
    [{ ...ATTESTATION, symbol: undefined }, 400, 'MISSING_SYMBOL'],
    [{ ...ATTESTATION, symbol: 'AAPL' }, 400, 'INVALID_SYMBOL'],
    [{ ...ATTESTATION, side: undefined }, 400, 'MISSING_SIDE'],
    [{ ...ATTESTATION, side: 'hold' }, 400, 'INVALID_SIDE'],
    [{ ...ATTESTATION, tokenAmount: '-1' }, 400, 'INVALID_TOKEN_AMOUNT'],
    [{ ...withoutAmount, notionalValue: 'ten' }, 400, 'INVALID_NOTIONAL_VALUE'],
    [withoutAmount, 400, 'MISSING_TOKEN_OR_NOTIONAL'],
    [{ ...ATTESTATION, duration: 'medium' }, 400, 'INVALID_DURATION'],
    [{ ...ATTESTATION, chainId: 'polygon-137' }, 400, 'INVALID_GM_CHAIN'],
    [{ ...ATTESTATION, symbol: 'ZZZZon' }, 404, 'ASSET_NOT_FOUND'],
  ])('%j is %d %s', async (body, status, code) => {
    expectRefusal(await post(url, body), status, code);
  });

  test('a read-only key is 403 READ_ONLY_API_KEY', async () => {
    expectRefusal(await post(url, ATTESTATION, api.keys.read), 403, 'READ_ONLY_API_KEY');
  });

  test('a closed market is 403 MARKET_CLOSED; an asset outside its sessions 403 ASSET_CLOSED_FOR_SESSION', async () => {
    await api.tradeAt(SATURDAY_NOON);
    expectRefusal(await post(url, ATTESTATION), 403, 'MARKET_CLOSED');
    await api.tradeAt(TUESDAY_11PM);
    expectRefusal(await post(url, { ...ATTESTATION, symbol: 'KOon' }), 403, 'ASSET_CLOSED_FOR_SESSION');
  });

  test('the scheduled transition pause between premarket and regular (09:30 New York) is 403 MARKET_PAUSED', async () => {
    await api.tradeAt(newYorkTime('2026-11-23', '09:30'));
    expectRefusal(await post(url, ATTESTATION), 403, 'MARKET_PAUSED');
  });

  test('a paused asset is 403 ASSET_PAUSED, a paused market 403 MARKET_PAUSED', async () => {
    await admin('/v1/status/assets/AAPLon/pause', { reason: 'maintenance' });
    expectRefusal(await post(url, ATTESTATION), 403, 'ASSET_PAUSED');
    await admin('/v1/status/market/pause', { reason: 'exchange outage' });
    expectRefusal(await post(url, { ...ATTESTATION, symbol: 'MSFTon' }), 403, 'MARKET_PAUSED');
  });

  test('a buy of a redeem-only asset is 403 ASSET_REDEEM_ONLY', async () => {
    const event = { symbol: 'AAPLon', code: 'ASSET_REDEEM_ONLY', reason: 'merger', start: MONDAY_10AM - 60_000, end: MONDAY_10AM + 3_600_000 };
    expect((await admin('/v1/status/assets/events', event)).status).toBe(201);
    expectRefusal(await post(url, ATTESTATION), 403, 'ASSET_REDEEM_ONLY');
  });

  test('a chain an operator paused is 400 PAUSED_GM_CHAIN', async () => {
    expect((await admin('/v1/status/chains/ethereum-1/pause', { reason: 'maintenance' })).status).toBe(200);
    expectRefusal(await post(url, ATTESTATION), 400, 'PAUSED_GM_CHAIN');
  });
});

describe('POST /v1/attestations: the refusals only a firm attestation has', () => {
  freshApiAt(MONDAY_10AM);

  test.each([
    [{ ...ATTESTATION, chainId: 'solana-900' }, 'MISSING_USER_ADDRESS'],
    [{ ...ATTESTATION, chainId: 'solana-900', userAddress: 'not-base58!' }, 'INVALID_USER_ADDRESS'],
  ])('%j is 400 %s', async (body, code) => {
    expectRefusal(await post('/v1/attestations', body), 400, code);
  });

  test('MAX_ATTESTATIONS, MAX_LIMIT_REACHED and SESSION_LIMIT_REACHED are 400', async () => {
    await setLimit('AAPLon', 'regular', 1, '1000000');
    expectAnswer(await post('/v1/attestations', ATTESTATION), 'create-attestation');
    expectRefusal(await post('/v1/attestations', ATTESTATION), 400, 'MAX_ATTESTATIONS');

    await setLimit('NVDAon', 'regular', 10, '1000', '1500');
    const notional = (value: string) => ({ chainId: 'ethereum-1', symbol: 'NVDAon', side: 'buy', notionalValue: value });
    const first = await post('/v1/attestations', notional('900'));
    expectAnswer(first, 'create-attestation');
    expectRefusal(await post('/v1/attestations', notional('200')), 400, 'MAX_LIMIT_REACHED');
    await api.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [first.body.attestationId]);
    expectRefusal(await post('/v1/attestations', notional('700')), 400, 'SESSION_LIMIT_REACHED');
  });

  test('OFFHOURS_EXPOSURE_LIMIT_REACHED is 400', async () => {
    await api.close();
    api = await createTestApi({ attestationSettings: { offhoursGlobalExposure: new Decimal('1000'), offhoursAssetExposure: new Decimal('800') } });
    await api.tradeAt(SATURDAY_NOON);
    const notional = (value: string) => ({ chainId: 'ethereum-1', symbol: 'SPYon', side: 'buy', notionalValue: value });
    expectAnswer(await post('/v1/attestations', notional('700')), 'create-attestation');
    expectRefusal(await post('/v1/attestations', notional('200'), api.keys.admin), 400, 'OFFHOURS_EXPOSURE_LIMIT_REACHED');
  });

  test('a wallet not on the account’s allow-list is 403 INVALID_ADDRESS', async () => {
    const { rows } = await api.db.query<{ account_id: string }>(`SELECT account_id FROM api_keys WHERE name = 'test write'`);
    // The operator sets the account to trade only through wallets on its list, and lists none.
    expect((await api.http.put(`/v1/accounts/${rows[0]!.account_id}/allow-list`).set('x-api-key', api.keys.admin).send({ required: true })).status).toBe(200);
    expectRefusal(await post('/v1/attestations', { ...ATTESTATION, chainId: 'solana-900', userAddress: SOLANA_WALLET }), 403, 'INVALID_ADDRESS');
  });
});

describe('the chain reads, on a local chain the watcher has scanned', () => {
  let database: TestDb;
  let chain: TestChain;
  let chainApi: TestApi;
  let tokens: Record<string, `0x${string}`>;
  // The scan records no execution or burn, so nothing is handed to Temporal: the client never connects.
  let temporal: Client;
  const chainGet = (url: string, key: string | null = chainApi.keys.read) => (key === null ? chainApi.http.get(url) : chainApi.http.get(url).set('x-api-key', key));

  beforeAll(async () => {
    database = await cloneTemplateDatabase();
    chain = await startTestChain(database.db);
    temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    chainApi = await createTestApi({ database, fixtureDeployments: false, chains: { [chain.chain]: chain.context } });
    tokens = await chainTokenAddresses(database.db, chain.chain);
    // The issuer (the tokens' admin) takes the minter role and mints to a holder, which the watcher then records.
    const issuer = createWalletClient({ chain: viemChain(chain.context.network), account: chain.issuer, transport: http(chain.context.network.rpcUrl) });
    const mined = async (hash: `0x${string}`) => expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success');
    await mined(await issuer.writeContract({ address: tokens.AAPLon!, abi: stockTokenAbi, functionName: 'grantRole', args: [keccak256(stringToHex('MINTER_ROLE')), issuer.account.address] }));
    await mined(await issuer.writeContract({ address: tokens.AAPLon!, abi: stockTokenAbi, functionName: 'mint', args: [chain.walletOf(1).account.address, parseUnits('2.5', 18)] }));
    await chain.client.request({ method: 'anvil_mine', params: ['0x8'] } as never);
    const scanner = createChainWatcherActivities({ db: database.db, chains: { [chain.chain]: chain.context }, temporal, taskQueue: 'unused', blockRange: 50, settlementGraceMs: 60_000, hedgeWindowMs: 100 });
    const environment = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    for (let polls = 0; !((await environment.run(scanner.scanChain, { chain: chain.chain })) as ScanChainResult).caughtUp; polls++) {
      if (polls === 100) throw new Error('the watcher did not catch up in 100 polls');
    }
  }, 120_000);

  afterAll(async () => {
    await temporal?.connection.close().catch(() => undefined);
    await chain?.stop();
    await database?.drop();
  });

  test('GET /v1/chains/{chainId}/balances, whole and filtered, in the reference’s shape', async () => {
    const whole = await chainGet('/v1/chains/ethereum-1/balances');
    expectAnswer(whole, 'chain-balances');
    const holder = chain.walletOf(1).account.address.toLowerCase();
    expect(whole.body.tokens.find((token: { tokenSymbol: string }) => token.tokenSymbol === 'AAPLon').balances).toEqual([{ holderAddress: { account: holder }, balance: '2.5' }]);
    expectAnswer(await chainGet(`/v1/chains/ethereum-1/balances?tokenAddress=${tokens.AAPLon}&userAddress=${holder}`), 'chain-balances');
  });

  test('GET /v1/chains/{chainId}/tokens/{tokenAddress}/info in the reference’s shape', async () => {
    const response = await chainGet(`/v1/chains/ethereum-1/tokens/${tokens.AAPLon}/info`);
    expectAnswer(response, 'token-info');
    expect(response.body.token).toMatchObject({ tokenSymbol: 'AAPLon', tokenDecimals: 18, tokenSupply: { value: '2.5' } });
  });

  test('a malformed address is a 400 in the reference’s ErrorResponse shape', async () => {
    for (const url of ['/v1/chains/ethereum-1/balances?userAddress=0x12', '/v1/chains/ethereum-1/balances?tokenAddress=nowhere', '/v1/chains/ethereum-1/tokens/0x12/info']) {
      const response = await chainGet(url);
      expect(response.status).toBe(400);
      expect(complaints('error-response', response.body)).toBe('');
    }
  });

  test.each(['/v1/chains/{chain}/balances', `/v1/chains/{chain}/tokens/0x${'44'.repeat(20)}/info`])('GET %s: a chain that is not a GM chain is 400 INVALID_GM_CHAIN, no key 401', async (url) => {
    expectRefusal(await chainGet(url.replace('{chain}', 'polygon-137')), 400, 'INVALID_GM_CHAIN');
    expectRefusal(await chainGet(url.replace('{chain}', 'ethereum-1'), null), 401, 'MISSING_API_KEY');
  });
});
