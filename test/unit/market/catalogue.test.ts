import { PublicKey } from '@solana/web3.js';
import { CATALOGUE, findAsset, solanaMintAddress } from '../../../domain/catalogue';
import { multiplierAt, multiplierHistory, previousRegularClose } from '../../../domain/market/multiplier';
import { isTradingDay, newYorkTime } from '../../../domain/calendar';
import { payoutFrequency } from '../../../domain/market/statistics';
import { Decimal } from '../../../domain/money';

const NOW = Date.parse('2026-11-21T17:00:00Z');

function asset(symbol: string) {
  const found = findAsset(symbol);
  if (found === undefined) throw new Error(`${symbol} missing from the catalogue`);
  return found;
}

describe('catalogue', () => {
  test('has at least 12 assets with unique symbols ending in "on"', () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(12);
    const symbols = CATALOGUE.map((a) => a.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
    for (const a of CATALOGUE) expect(a.symbol).toBe(`${a.ticker}on`);
  });

  test('holds the required tokens and every kind', () => {
    for (const symbol of ['AAPLon', 'NVDAon', 'TSLAon', 'MSFTon', 'AMZNon', 'GOOGLon', 'METAon', 'SPYon', 'QQQon', 'TLTon']) {
      expect(findAsset(symbol)?.symbol).toBe(symbol);
    }
    expect(new Set(CATALOGUE.map((a) => a.kind))).toEqual(new Set(['stock', 'etf', 'portfolio']));
    expect(findAsset('aaplon')).toBeUndefined();
    expect(findAsset('XYZon')).toBeUndefined();
  });

  test('some assets trade overnight, some do not, some trade off-hours', () => {
    expect(CATALOGUE.some((a) => a.tradableSessions.includes('overnight'))).toBe(true);
    expect(CATALOGUE.some((a) => !a.tradableSessions.includes('overnight'))).toBe(true);
    expect(CATALOGUE.filter((a) => a.tradableOffhours).map((a) => a.symbol)).toEqual(expect.arrayContaining(['SPYon', 'QQQon']));
    for (const a of CATALOGUE) expect(a.tradableSessions).toEqual(expect.arrayContaining(['premarket', 'regular', 'postmarket']));
  });

  test('figures are plain positive decimals', () => {
    for (const a of CATALOGUE) {
      for (const value of [a.basePrice, a.annualVolatility, a.sharesOutstanding, a.averageDailyVolume]) {
        expect(value).toMatch(/^\d+(\.\d+)?$/);
        expect(new Decimal(value).isZero()).toBe(false);
      }
      expect(Number.isInteger(a.holders) && a.holders > 0).toBe(true);
      expect(a.listedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  test('Solana mints are valid 32-byte base58 public keys, distinct and deterministic', () => {
    const seen = new Set<string>();
    for (const a of CATALOGUE) {
      const mint = a.addresses['solana-900'];
      const key = new PublicKey(mint);
      expect(key.toBytes()).toHaveLength(32);
      expect(key.toBase58()).toBe(mint);
      expect(solanaMintAddress(a.symbol)).toBe(mint);
      seen.add(mint);
    }
    expect(seen.size).toBe(CATALOGUE.length);
  });

  test('portfolio constituents are single catalogue assets listed no later than the portfolio', () => {
    const portfolios = CATALOGUE.filter((a) => a.kind === 'portfolio');
    expect(portfolios.length).toBeGreaterThanOrEqual(1);
    for (const portfolio of portfolios) {
      expect(portfolio.constituents.length).toBeGreaterThanOrEqual(2);
      for (const constituent of portfolio.constituents) {
        const member = asset(constituent.symbol);
        expect(member.kind).not.toBe('portfolio');
        expect(member.listedAt <= portfolio.listedAt).toBe(true);
        expect(new Decimal(constituent.units).greaterThan(0)).toBe(true);
      }
    }
    for (const single of CATALOGUE.filter((a) => a.kind !== 'portfolio')) expect(single.constituents).toEqual([]);
  });

  test('dividends are ordered, on trading days, paid after ex-date, and declared through 2026', () => {
    for (const a of CATALOGUE) {
      const exDates = a.dividends.map((d) => d.exDate);
      expect([...exDates].sort()).toEqual(exDates);
      for (const d of a.dividends) {
        expect(isTradingDay(d.exDate)).toBe(true);
        expect(d.paymentDate >= d.exDate).toBe(true);
        expect(new Decimal(d.cashAmount).greaterThan(0)).toBe(true);
      }
      if (a.dividends.length > 0) expect(exDates[exDates.length - 1]! > '2026-12-31').toBe(true);
      for (const split of a.splits) {
        expect(isTradingDay(split.date)).toBe(true);
        expect(split.date > a.listedAt).toBe(true);
      }
    }
    expect(asset('TSLAon').dividends).toEqual([]);
    expect(asset('AMZNon').dividends).toEqual([]);
    expect(asset('NFLXon').splits).toEqual([{ date: '2025-11-17', ratio: '10' }]);
  });

  test.each([
    ['TLTon', 'monthly'],
    ['AAPLon', 'quarterly'],
    ['SPYon', 'quarterly'],
    ['NVOon', 'semi-annually'],
    ['BABAon', 'annually'],
    ['VALEon', 'irregular'],
    ['TSLAon', 'none'],
    ['MAG7on', 'none'],
  ])('%s pays %s', (symbol, frequency) => {
    expect(payoutFrequency(asset(symbol).dividends.map((d) => d.paymentDate), NOW)).toBe(frequency);
  });
});

describe('shares multiplier', () => {
  test('starts at 1 at listing and has one entry per reinvested dividend', () => {
    const aapl = asset('AAPLon');
    const history = multiplierHistory(aapl, NOW);
    const reinvested = aapl.dividends.filter((d) => d.exDate > aapl.listedAt && newYorkTime(d.exDate, '09:30') <= NOW);
    expect(reinvested.length).toBeGreaterThanOrEqual(4);
    expect(history[0]).toEqual({ sharesMultiplier: '1', changeTimestamp: newYorkTime(aapl.listedAt, '00:00'), reason: 'listing' });
    expect(history.slice(1).map((h) => [h.changeTimestamp, h.reason])).toEqual(
      reinvested.map((d) => [newYorkTime(d.exDate, '09:30'), 'cash_dividend']),
    );
  });

  test('each dividend compounds by cash over the previous close, rounded down to 18 decimals', () => {
    const msft = asset('MSFTon');
    const history = multiplierHistory(msft, NOW);
    const reinvested = msft.dividends.filter((d) => d.exDate > msft.listedAt && newYorkTime(d.exDate, '09:30') <= NOW);
    let expected = new Decimal(1);
    reinvested.forEach((dividend, i) => {
      const close = previousRegularClose(msft, dividend.exDate);
      expected = expected.times(new Decimal(dividend.cashAmount).dividedBy(close).plus(1)).toDecimalPlaces(18, Decimal.ROUND_DOWN);
      expect(history[i + 1]?.sharesMultiplier).toBe(expected.toFixed());
      // Each dividend is a fraction of a percent of the price.
      expect(new Decimal(dividend.cashAmount).dividedBy(close).toNumber()).toBeLessThan(0.02);
    });
    expect(new Decimal(history[history.length - 1]!.sharesMultiplier).greaterThan(1)).toBe(true);
  });

  test('a split multiplies by its ratio; no dividends, no other entries', () => {
    expect(multiplierHistory(asset('NFLXon'), NOW)).toEqual([
      { sharesMultiplier: '1', changeTimestamp: newYorkTime('2025-09-03', '00:00'), reason: 'listing' },
      { sharesMultiplier: '10', changeTimestamp: newYorkTime('2025-11-17', '09:30'), reason: 'stock_split' },
    ]);
    expect(multiplierHistory(asset('TSLAon'), NOW)).toHaveLength(1);
  });

  test('portfolios keep a multiplier of 1', () => {
    const mag7 = asset('MAG7on');
    expect(multiplierHistory(mag7, NOW)).toEqual([
      { sharesMultiplier: '1', changeTimestamp: newYorkTime(mag7.listedAt, '00:00'), reason: 'listing' },
    ]);
  });

  test('history stops at `until`, and multiplierAt switches exactly at each change', () => {
    const ko = asset('KOon');
    const full = multiplierHistory(ko, NOW);
    const change = full[2]!;
    expect(multiplierHistory(ko, change.changeTimestamp - 1)).toEqual(full.slice(0, 2));
    expect(multiplierHistory(ko, change.changeTimestamp)).toEqual(full.slice(0, 3));
    expect(multiplierAt(ko, change.changeTimestamp - 1).toFixed()).toBe(full[1]!.sharesMultiplier);
    expect(multiplierAt(ko, change.changeTimestamp).toFixed()).toBe(change.sharesMultiplier);
    expect(multiplierAt(ko, Date.parse('2020-01-01T00:00:00Z')).toFixed()).toBe('1');
  });
});
