/** The assets resource against the real app and a backfilled PostgreSQL: happy and error cases per route. */
import { Decimal } from '../../domain/money';
import { VALID_PAIRS } from '../../domain/market/candles';
import { CATALOGUE } from '../../domain/catalogue';
import { recordChainDeployment } from '../../db/queries/chain-deployments';
import { createTestApi, type TestApi } from '../support/api';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ fixtureDeployments: false });
});
afterAll(() => api.close());

const get = (path: string) => api.http.get(path).set('x-api-key', api.keys.read);
const DECIMAL = /^\d+(\.\d+)?$/;
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

describe('symbol validation on every per-asset route', () => {
  const routes = [
    '/v1/assets/{s}/prices/latest',
    '/v1/assets/{s}/market',
    '/v1/assets/{s}/prices/ohlc?interval=1day&range=all',
    '/v1/assets/{s}/shares-multiplier',
    '/v1/assets/{s}/dividends',
    '/v1/assets/{s}/addresses',
  ];
  test.each(routes.flatMap((route) => [
    [route, 'on', 400, 'INVALID_SYMBOL'],
    [route, 'AAPL', 400, 'INVALID_SYMBOL'],
    [route, 'AAPLON', 400, 'INVALID_SYMBOL'],
    [route, 'ZZZZon', 404, 'ASSET_NOT_FOUND'],
  ] as const))('%s with %s → %i %s', async (route, symbol, status, code) => {
    const response = await get(route.replace('{s}', symbol));
    expect(response.status).toBe(status);
    expect(response.body.code).toBe(code);
    if (code === 'INVALID_SYMBOL') {
      expect(response.body.message).toBe('Symbol must be at least 3 characters long and end with "on"');
    }
  });
});

describe('GET /v1/assets/all/prices/latest', () => {
  test('lists every catalogue asset with token and underlying prices', async () => {
    const response = await get('/v1/assets/all/prices/latest');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(CATALOGUE.length);
    for (const item of response.body) {
      expect(item).toEqual({
        primaryMarket: { symbol: expect.stringMatching(/on$/), price: expect.stringMatching(DECIMAL) },
        underlyingMarket: { ticker: expect.any(String), price: expect.stringMatching(DECIMAL) },
        timestamp: expect.any(Number),
      });
    }
  });

  test.each(['asc', 'desc'] as const)('sorts %s by token price', async (sort) => {
    const prices = (await get(`/v1/assets/all/prices/latest?sort=${sort}`)).body.map(
      (item: { primaryMarket: { price: string } }) => new Decimal(item.primaryMarket.price),
    );
    const sorted = [...prices].sort((a, b) => (sort === 'asc' ? a.comparedTo(b) : b.comparedTo(a)));
    expect(prices.map(String)).toEqual(sorted.map(String));
  });

  test.each(['up', 'ASC', ''])('refuses sort=%s with INVALID_SORT', async (sort) => {
    const response = await get(`/v1/assets/all/prices/latest?sort=${sort}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_SORT');
    expect(response.body.message).toContain('sort');
  });
});

describe('GET /v1/assets/{symbol}/prices/latest', () => {
  test('answers the price stored in the database', async () => {
    const response = await get('/v1/assets/AAPLon/prices/latest');
    const { rows } = await api.db.query('SELECT token_price::text AS p, underlying_price::text AS u FROM latest_prices WHERE symbol = $1', ['AAPLon']);
    expect(response.status).toBe(200);
    expect(response.body.primaryMarket).toEqual({ symbol: 'AAPLon', price: rows[0].p });
    expect(response.body.underlyingMarket).toEqual({ ticker: 'AAPL', price: rows[0].u });
  });
});

describe('GET /v1/assets/all/prices/latest/enhanced', () => {
  test('carries the 24 h change consistent with price and percentage', async () => {
    const response = await get('/v1/assets/all/prices/latest/enhanced?sort=desc');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(CATALOGUE.length);
    for (const item of response.body) {
      expect(item).toEqual({
        symbol: expect.any(String),
        price: expect.stringMatching(DECIMAL),
        priceChange24h: expect.stringMatching(SIGNED_DECIMAL),
        priceChangePct24h: expect.stringMatching(SIGNED_DECIMAL),
        timestamp: expect.any(Number),
      });
      const start = new Decimal(item.price).minus(item.priceChange24h);
      if (!start.isZero()) {
        const pct = new Decimal(item.priceChange24h).dividedBy(start).times(100);
        expect(pct.minus(item.priceChangePct24h).abs().toNumber()).toBeLessThan(0.0001);
      }
    }
  });

  test('refuses a bad sort', async () => {
    expect((await get('/v1/assets/all/prices/latest/enhanced?sort=price')).body.code).toBe('INVALID_SORT');
  });
});

describe('GET /v1/assets/{symbol}/market', () => {
  test('a single stock has its underlying market and no constituents', async () => {
    const response = await get('/v1/assets/AAPLon/market');
    expect(response.status).toBe(200);
    const { primaryMarket, underlyingMarket, constituentTokens } = response.body;
    expect(primaryMarket).toMatchObject({ symbol: 'AAPLon', totalHolders: expect.any(Number), sharesMultiplier: expect.stringMatching(DECIMAL) });
    expect(primaryMarket.tradableSessions).toEqual(expect.arrayContaining(['premarket', 'regular', 'postmarket']));
    expect(primaryMarket.priceHistory24h.length).toBeGreaterThan(10);
    for (const field of ['ticker', 'name', 'price', 'priceHigh52w', 'priceLow52w', 'volume', 'averageVolume', 'sharesOutstanding', 'marketCap']) {
      expect(typeof underlyingMarket[field]).toBe('string');
    }
    expect(new Decimal(underlyingMarket.priceHigh52w).greaterThanOrEqualTo(underlyingMarket.priceLow52w)).toBe(true);
    expect(new Decimal(underlyingMarket.marketCap).toFixed(0)).toBe(
      new Decimal(underlyingMarket.price).times(underlyingMarket.sharesOutstanding).toFixed(0, Decimal.ROUND_DOWN),
    );
    expect(constituentTokens).toEqual([]);
  });

  test('a portfolio token has no underlying market and lists its constituents', async () => {
    const portfolio = CATALOGUE.find((asset) => asset.kind === 'portfolio')!;
    const response = await get(`/v1/assets/${portfolio.symbol}/market`);
    expect(response.status).toBe(200);
    expect(response.body.underlyingMarket).toBeNull();
    expect(response.body.constituentTokens).toEqual(portfolio.constituents.map((c) => c.symbol));
  });
});

describe('GET /v1/assets/all/market', () => {
  test('every priced asset, each entry what its own market route answers', async () => {
    const response = await get('/v1/assets/all/market');
    expect(response.status).toBe(200);
    expect(response.body.map((entry: { primaryMarket: { symbol: string } }) => entry.primaryMarket.symbol)).toEqual(CATALOGUE.map((asset) => asset.symbol).sort());
    for (const symbol of ['AAPLon', CATALOGUE.find((asset) => asset.kind === 'portfolio')!.symbol]) {
      const one = (await get(`/v1/assets/${symbol}/market`)).body;
      expect(response.body.find((entry: { primaryMarket: { symbol: string } }) => entry.primaryMarket.symbol === symbol)).toEqual(one);
    }
  });

  test('an asset without a price yet is left out, not a failure of the whole list', async () => {
    const { rows } = await api.db.query(`DELETE FROM latest_prices WHERE symbol = 'TSLAon' RETURNING *`);
    try {
      api.app.services.forget('prices');
      const response = await get('/v1/assets/all/market');
      expect(response.status).toBe(200);
      expect(response.body.map((entry: { primaryMarket: { symbol: string } }) => entry.primaryMarket.symbol)).not.toContain('TSLAon');
      expect(response.body).toHaveLength(CATALOGUE.length - 1);
    } finally {
      const row = rows[0];
      await api.db.query('INSERT INTO latest_prices (symbol, token_price, underlying_price, observed_at) VALUES ($1, $2, $3, $4)', [
        row.symbol, row.token_price, row.underlying_price, row.observed_at,
      ]);
      api.app.services.forget('prices');
    }
  });
});

describe('GET /v1/assets/all/metadata', () => {
  test('every token with its ticker, classification and the addresses /v1/assets/all/addresses lists', async () => {
    const [metadata, addresses] = await Promise.all([get('/v1/assets/all/metadata'), get('/v1/assets/all/addresses')]);
    expect(metadata.status).toBe(200);
    expect(metadata.body).toHaveLength(CATALOGUE.length);
    const addressesOf = new Map(addresses.body.map((entry: { symbol: string; addresses: unknown[] }) => [entry.symbol, entry.addresses]));
    for (const asset of CATALOGUE) {
      expect(metadata.body.find((entry: { symbol: string }) => entry.symbol === asset.symbol)).toEqual({
        symbol: asset.symbol,
        ticker: asset.ticker,
        coingeckoId: null,
        coinmarketcapId: null,
        addresses: addressesOf.get(asset.symbol),
        tags: { assetClass: 'equities', instrumentType: asset.kind },
      });
    }
  });
});

describe('GET /v1/assets/{symbol}/prices/ohlc', () => {
  test.each(VALID_PAIRS.map((pair) => [pair.interval, pair.range] as const))('%s over %s returns candles of both markets', async (interval, range) => {
    const response = await get(`/v1/assets/AAPLon/prices/ohlc?interval=${interval}&range=${range}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ interval, range, primaryMarket: { symbol: 'AAPLon' }, underlyingMarket: { ticker: 'AAPL' } });
    for (const market of [response.body.primaryMarket, response.body.underlyingMarket]) {
      expect(market.data.length).toBeGreaterThan(0);
      let previous = 0;
      for (const candle of market.data) {
        expect(candle.timestamp).toBeGreaterThan(previous);
        previous = candle.timestamp;
        expect(new Decimal(candle.high).greaterThanOrEqualTo(Decimal.max(candle.open, candle.close))).toBe(true);
        expect(new Decimal(candle.low).lessThanOrEqualTo(Decimal.min(candle.open, candle.close))).toBe(true);
      }
    }
  });

  test('1min over 1day covers 24 h of open market for an asset that does not trade off-hours', async () => {
    // The range ends at the service's now: pin it to when the template was backfilled, however long the run has taken since.
    api.setNow(Number(process.env.TEST_TEMPLATE_CREATED_AT));
    const response = await get('/v1/assets/AAPLon/prices/ohlc?interval=1min&range=1day');
    api.setNow(undefined);
    // 24 h of open market is 1440 one-minute candles, give or take the bucket at each edge.
    expect(Math.abs(response.body.underlyingMarket.data.length - 1440)).toBeLessThanOrEqual(2);
  });

  test.each([
    ['interval=2min&range=1day', 'INVALID_INTERVAL'],
    ['range=1day', 'INVALID_INTERVAL'],
    ['interval=1min&range=2day', 'INVALID_RANGE'],
    ['interval=1min', 'INVALID_RANGE'],
    ['interval=1min&range=1year', 'INVALID_INTERVAL_RANGE_PAIR'],
    ['interval=1day&range=1day', 'INVALID_INTERVAL_RANGE_PAIR'],
  ])('refuses %s with %s', async (query, code) => {
    const response = await get(`/v1/assets/AAPLon/prices/ohlc?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
  });
});

describe('GET /v1/assets/{symbol}/shares-multiplier', () => {
  test('one entry per change with the value after it, in time order', async () => {
    const response = await get('/v1/assets/AAPLon/shares-multiplier?range=all');
    expect(response.status).toBe(200);
    const { history } = response.body;
    expect(history[0]).toMatchObject({ sharesMultiplier: '1', reason: 'listing' });
    for (let index = 1; index < history.length; index += 1) {
      expect(history[index].changeTimestamp).toBeGreaterThan(history[index - 1].changeTimestamp);
      expect(history[index].sharesMultiplier).not.toBe(history[index - 1].sharesMultiplier);
      expect(history[index].changeTimestamp).toBeLessThanOrEqual(Date.now());
    }
  });

  test('a split shows up as a stock_split change', async () => {
    const split = CATALOGUE.find((asset) => asset.splits.length > 0)!;
    const response = await get(`/v1/assets/${split.symbol}/shares-multiplier`);
    expect(response.body.history.map((entry: { reason: string }) => entry.reason)).toContain('stock_split');
  });

  test('a short range only holds recent changes', async () => {
    const all = (await get('/v1/assets/AAPLon/shares-multiplier?range=all')).body.history;
    const recent = (await get('/v1/assets/AAPLon/shares-multiplier?range=1day')).body.history;
    expect(recent.length).toBeLessThan(all.length);
  });

  test('refuses an unknown range', async () => {
    expect((await get('/v1/assets/AAPLon/shares-multiplier?range=2year')).body.code).toBe('INVALID_RANGE');
  });
});

describe('GET /v1/assets/{symbol}/dividends', () => {
  test('a quarterly payer', async () => {
    const response = await get('/v1/assets/AAPLon/dividends');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ticker: 'AAPL',
      dividendYield: expect.stringMatching(DECIMAL),
      payoutFrequency: 'quarterly',
      lastCashAmount: expect.stringMatching(DECIMAL),
      lastPaymentDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      timestamp: expect.any(Number),
    });
    expect(new Decimal(response.body.dividendYield).greaterThan(0)).toBe(true);
  });

  test('a stock that pays nothing', async () => {
    const response = await get('/v1/assets/TSLAon/dividends');
    expect(response.body).toMatchObject({ payoutFrequency: 'none', dividendYield: '0', lastCashAmount: '0', lastPaymentDate: null });
  });
});

describe('addresses', () => {
  test('before any deployment, every asset lists its Solana mint only', async () => {
    const response = await get('/v1/assets/all/addresses');
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(CATALOGUE.length);
    for (const entry of response.body) {
      expect(entry.addresses).toEqual([{ networkChainId: 'solana-900', address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/), decimals: 9 }]);
    }
  });

  test('a deployment adds its token addresses, and a newer deployment of the chain replaces them', async () => {
    const fixture = (seed: number) => `0x${seed.toString(16).padStart(40, '0')}` as const;
    const deploy = async (base: number) => {
      const tokens = Object.fromEntries(CATALOGUE.map((asset, index) => [asset.symbol, fixture(base + index)]));
      const contracts = { tokenManager: fixture(base + 100), issuer: fixture(base + 101), registry: fixture(base + 102), stablecoin: fixture(base + 103) };
      await recordChainDeployment(api.db, { chain: 'bsc-56', chainId: 56, ...contracts, deployer: fixture(base + 104), deployedBlock: 1 }, tokens);
      await api.app.services.changed('catalogue');
    };
    await deploy(0x1000);
    await deploy(0x2000);
    const nvda = (await get('/v1/assets/NVDAon/addresses')).body;
    expect(nvda.addresses).toEqual([
      { networkChainId: 'bsc-56', address: fixture(0x2000 + CATALOGUE.findIndex((asset) => asset.symbol === 'NVDAon')), decimals: 18 },
      { networkChainId: 'solana-900', address: expect.any(String), decimals: 9 },
    ]);
  });

  test('one asset answers the same entry as in the list', async () => {
    const all = (await get('/v1/assets/all/addresses')).body;
    const one = (await get('/v1/assets/NVDAon/addresses')).body;
    expect(one).toEqual(all.find((entry: { symbol: string }) => entry.symbol === 'NVDAon'));
  });
});
