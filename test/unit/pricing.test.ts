import { expirationSeconds, notionalOf, quotePrice, tokenAmountForNotional, type PricingPolicy } from '../../domain/pricing';
import { Decimal } from '../../domain/money';

const policy: PricingPolicy = { shortSpreadBps: 10, longSpreadBps: 25, shortTtlSeconds: 30, longTtlSeconds: 300 };

test.each([
  ['buy', 'short', '100', '100.1'],
  ['sell', 'short', '100', '99.9'],
  ['buy', 'long', '100', '100.25'],
  ['sell', 'long', '100', '99.75'],
] as const)('%s %s around %s is %s', (side, duration, mid, expected) => {
  expect(quotePrice(new Decimal(mid), side, duration, policy).toFixed()).toBe(expected);
});

test('a buy rounds its price up and a sell down at the 18th decimal', () => {
  const mid = new Decimal('1.000000000000000001');
  expect(quotePrice(mid, 'buy', 'short', policy).toFixed()).toBe('1.001000000000000002');
  expect(quotePrice(mid, 'sell', 'short', policy).toFixed()).toBe('0.999');
});

test('the long spread is wider than the short one on both sides', () => {
  const mid = new Decimal('254.2703192357');
  expect(quotePrice(mid, 'buy', 'long', policy).greaterThan(quotePrice(mid, 'buy', 'short', policy))).toBe(true);
  expect(quotePrice(mid, 'sell', 'long', policy).lessThan(quotePrice(mid, 'sell', 'short', policy))).toBe(true);
});

test('a notional buys tokens rounded down, and their notional is never more than asked for', () => {
  const price = new Decimal('3');
  const tokens = tokenAmountForNotional(new Decimal('100'), price);
  expect(tokens.toFixed()).toBe('33.333333333333333333');
  expect(notionalOf(tokens, price).lessThanOrEqualTo(100)).toBe(true);
});

test('notional rounds up at the 18th decimal', () => {
  expect(notionalOf(new Decimal('0.000000000000000001'), new Decimal('0.5')).toFixed()).toBe('0.000000000000000001');
});

test('expiration counts from the current second', () => {
  expect(expirationSeconds(1_700_000_000_999, 'short', policy)).toBe(1_700_000_030);
  expect(expirationSeconds(1_700_000_000_999, 'long', policy)).toBe(1_700_000_300);
});
