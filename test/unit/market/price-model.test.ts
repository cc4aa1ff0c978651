import { findAsset } from '../../../domain/catalogue';
import { multiplierAt } from '../../../domain/market/multiplier';
import { newYorkTime } from '../../../domain/calendar';
import {
  DEFAULT_PRICE_SEED,
  MAX_PREMIUM,
  isTokenOpen,
  isUnderlyingOpen,
  pricesAt,
  tickVolume,
  tokenPrice,
  underlyingPrice,
} from '../../../domain/market/price-model';
import { Decimal } from '../../../domain/money';

const MINUTE_MS = 60_000;

function asset(symbol: string) {
  const found = findAsset(symbol);
  if (found === undefined) throw new Error(`${symbol} missing from the catalogue`);
  return found;
}

/** Prices every `stepMs` over [from, to). */
function series(price: (t: number) => Decimal, from: number, to: number, stepMs: number): string[] {
  const values: string[] = [];
  for (let t = from; t < to; t += stepMs) values.push(price(t).toFixed());
  return values;
}
const distinct = (values: string[]): number => new Set(values).size;

// A normal week: Friday 2026-11-13, weekend 14–15, Tuesday 17.
const fridayRegular = newYorkTime('2026-11-13', '10:00');
const saturdayMorning = newYorkTime('2026-11-14', '10:00');
const saturdayAfternoon = newYorkTime('2026-11-14', '16:00');
const tuesdayNight = newYorkTime('2026-11-17', '23:00');

describe('session helpers', () => {
  test.each([
    ['AAPLon', 'overnight', true, true],
    ['AAPLon', 'offhours', false, false],
    ['KOon', 'overnight', false, false],
    ['KOon', 'regular', true, true],
    ['SPYon', 'offhours', false, true],
  ] as const)('%s in %s: underlying %s, token %s', (symbol, session, underlying, token) => {
    expect(isUnderlyingOpen(asset(symbol), session)).toBe(underlying);
    expect(isTokenOpen(asset(symbol), session)).toBe(token);
  });
});

describe('determinism', () => {
  test('same asset, time and seed give the same prices; another seed another path', () => {
    const aapl = asset('AAPLon');
    const t = fridayRegular + 12_345;
    expect(tokenPrice(aapl, t).toFixed()).toBe(tokenPrice(aapl, t, DEFAULT_PRICE_SEED).toFixed());
    expect(underlyingPrice(aapl, t).equals(underlyingPrice(aapl, t))).toBe(true);
    expect(underlyingPrice(aapl, t, 7).equals(underlyingPrice(aapl, t))).toBe(false);
    expect(underlyingPrice(asset('MSFTon'), t).equals(underlyingPrice(aapl, t))).toBe(false);
  });

  test('prices carry 4 (underlying) and 10 (token) decimals at most, and are positive', () => {
    for (const symbol of ['AAPLon', 'NFLXon', 'MAG7on', 'TLTon']) {
      const { token, underlying } = pricesAt(asset(symbol), fridayRegular);
      expect(underlying.decimalPlaces()).toBeLessThanOrEqual(4);
      expect(token.decimalPlaces()).toBeLessThanOrEqual(10);
      expect(underlying.isPositive() && !underlying.isZero()).toBe(true);
    }
  });

  test('the underlying starts at its base price at listing', () => {
    const aapl = asset('AAPLon'); // trades overnight, so it is open at listing midnight
    expect(underlyingPrice(aapl, newYorkTime(aapl.listedAt, '00:00')).toFixed()).toBe(aapl.basePrice);
  });
});

describe('session awareness', () => {
  test('the underlying moves while open', () => {
    const values = series((t) => underlyingPrice(asset('KOon'), t), fridayRegular, fridayRegular + 60 * MINUTE_MS, MINUTE_MS);
    expect(distinct(values)).toBeGreaterThan(50);
  });

  test('a closed underlying holds its last open price all weekend', () => {
    const ko = asset('KOon');
    const weekend = series((t) => underlyingPrice(ko, t), saturdayMorning, saturdayAfternoon, 10 * MINUTE_MS);
    expect(distinct(weekend)).toBe(1);
    const fridayLast = underlyingPrice(ko, newYorkTime('2026-11-13', '20:00') - 1);
    expect(new Decimal(weekend[0] as string).minus(fridayLast).abs().lessThanOrEqualTo(fridayLast.times(0.0005))).toBe(true);
    expect(tokenPrice(ko, saturdayMorning).equals(tokenPrice(ko, saturdayAfternoon))).toBe(true);
  });

  test('overnight moves only assets that trade overnight', () => {
    const overnight = (symbol: string) =>
      distinct(series((t) => underlyingPrice(asset(symbol), t), tuesdayNight, tuesdayNight + 30 * MINUTE_MS, MINUTE_MS));
    expect(overnight('AAPLon')).toBeGreaterThan(25);
    expect(overnight('KOon')).toBe(1);
    expect(distinct(series((t) => tokenPrice(asset('KOon'), t), tuesdayNight, tuesdayNight + 30 * MINUTE_MS, MINUTE_MS))).toBe(1);
  });

  test('off-hours, only tokens tradable off-hours move, on an unmoving underlying', () => {
    const spy = asset('SPYon');
    const aapl = asset('AAPLon');
    const tokenSpy = series((t) => tokenPrice(spy, t), saturdayMorning, saturdayMorning + 60 * MINUTE_MS, MINUTE_MS);
    expect(distinct(tokenSpy)).toBeGreaterThan(50);
    expect(distinct(series((t) => underlyingPrice(spy, t), saturdayMorning, saturdayMorning + 60 * MINUTE_MS, MINUTE_MS))).toBe(1);
    expect(distinct(series((t) => tokenPrice(aapl, t), saturdayMorning, saturdayMorning + 60 * MINUTE_MS, MINUTE_MS))).toBe(1);
  });

  test('the token stays within the premium band around underlying × multiplier', () => {
    for (const symbol of ['SPYon', 'AAPLon', 'TLTon']) {
      const a = asset(symbol);
      for (let t = saturdayMorning - 3 * 86_400_000; t < saturdayAfternoon; t += 37 * MINUTE_MS) {
        const { token, underlying } = pricesAt(a, t);
        const fair = underlying.times(multiplierAt(a, t));
        expect(token.dividedBy(fair).minus(1).abs().toNumber()).toBeLessThanOrEqual(MAX_PREMIUM + 1e-9);
      }
    }
  });
});

describe('splits', () => {
  const nflx = asset('NFLXon');
  const split = newYorkTime('2025-11-17', '09:31'); // the regular open, after the 09:29–09:31 pause

  test('the underlying price divides by the split ratio', () => {
    const before = underlyingPrice(nflx, split - 1_000);
    const after = underlyingPrice(nflx, split);
    const ratio = before.dividedBy(after).toNumber();
    expect(ratio).toBeGreaterThan(9.9);
    expect(ratio).toBeLessThan(10.1);
  });

  test('the token price is continuous because the multiplier compensates', () => {
    const before = tokenPrice(nflx, split - 1_000);
    const after = tokenPrice(nflx, split);
    expect(after.dividedBy(before).minus(1).abs().toNumber()).toBeLessThan(0.002);
    expect(multiplierAt(nflx, split).toFixed()).toBe('10');
  });
});

describe('portfolio', () => {
  test('the underlying is the sum of units × constituent token prices', () => {
    const mag7 = asset('MAG7on');
    for (const t of [fridayRegular, tuesdayNight, saturdayMorning]) {
      const expected = mag7.constituents
        .reduce((sum, c) => sum.plus(new Decimal(c.units).times(tokenPrice(asset(c.symbol), t))), new Decimal(0))
        .toDecimalPlaces(4);
      expect(underlyingPrice(mag7, t).minus(expected).abs().toNumber()).toBeLessThanOrEqual(0.0001);
      expect(multiplierAt(mag7, t).toFixed()).toBe('1');
    }
  });
});

describe('tickVolume', () => {
  const mean = (symbol: string, from: number, market: 'primary' | 'underlying') => {
    let sum = new Decimal(0);
    for (let i = 0; i < 600; i++) sum = sum.plus(tickVolume(asset(symbol), from + i * 1000, market));
    return sum.dividedBy(600).toNumber();
  };

  test('is zero while the market is closed', () => {
    expect(tickVolume(asset('KOon'), saturdayMorning, 'underlying').isZero()).toBe(true);
    expect(tickVolume(asset('KOon'), saturdayMorning, 'primary').isZero()).toBe(true);
    expect(tickVolume(asset('SPYon'), saturdayMorning, 'underlying').isZero()).toBe(true);
    expect(tickVolume(asset('KOon'), tuesdayNight, 'underlying').isZero()).toBe(true);
  });

  test('is deterministic, positive while open and heaviest in the regular session', () => {
    const aapl = asset('AAPLon');
    expect(tickVolume(aapl, fridayRegular, 'underlying').equals(tickVolume(aapl, fridayRegular, 'underlying'))).toBe(true);
    const regular = mean('AAPLon', fridayRegular, 'underlying');
    const premarket = mean('AAPLon', newYorkTime('2026-11-13', '05:00'), 'underlying');
    expect(premarket).toBeGreaterThan(0);
    expect(regular).toBeGreaterThan(premarket * 3);
    // About 52M × 0.88 / 23,400 s per second in the regular session.
    expect(regular).toBeGreaterThan(500);
    expect(regular).toBeLessThan(6000);
    expect(mean('SPYon', saturdayMorning, 'primary')).toBeGreaterThan(0);
  });
});
