import BaseDecimal from 'decimal.js';
import {
  Decimal,
  InvalidDecimalError,
  Rounding,
  formatDecimal,
  fromScaledInteger,
  parseDecimal,
  toScaledInteger,
} from '../../../domain/money';

describe('formatDecimal', () => {
  test.each<[string, BaseDecimal | string, number | undefined, Rounding | undefined, string]>([
    ['drops trailing zeros', '1.500', undefined, undefined, '1.5'],
    ['integer stays integer', '42.000', undefined, undefined, '42'],
    ['negative zero', '-0', undefined, undefined, '0'],
    ['negative rounding to zero', '-0.0000000000000000001', undefined, undefined, '0'],
    ['tiny value without exponent', new BaseDecimal('1e-7'), undefined, undefined, '0.0000001'],
    ['huge value without exponent', new BaseDecimal('1.5e30'), undefined, undefined, '1500000000000000000000000000000'],
    ['18 decimals by default', '0.1234567890123456789', undefined, undefined, '0.123456789012345679'],
    ['half-even by default', '1.005', 2, undefined, '1'],
    ['half-even rounds odd up', '1.015', 2, undefined, '1.02'],
    ['half-up when asked', '1.005', 2, Rounding.HALF_UP, '1.01'],
    ['down truncates toward zero', '-1.239', 2, Rounding.DOWN, '-1.23'],
    ['floor goes more negative', '-1.231', 2, Rounding.FLOOR, '-1.24'],
    ['zero decimals', '1234.9', 0, Rounding.DOWN, '1234'],
  ])('%s', (_name, value, maxDecimals, rounding, expected) => {
    expect(formatDecimal(value, maxDecimals, rounding)).toBe(expected);
  });

  test('rejects a non-finite Decimal', () => {
    expect(() => formatDecimal(new BaseDecimal(NaN))).toThrow(InvalidDecimalError);
  });
});

describe('parseDecimal', () => {
  test.each([
    ['0', '0'],
    ['-1.5', '-1.5'],
    ['007.10', '7.1'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['123456789012345678901234567890.123456789012345678', '123456789012345678901234567890.123456789012345678'],
  ])('accepts %j', (input, canonical) => {
    expect(formatDecimal(parseDecimal(input))).toBe(canonical);
  });

  test.each(['', '+1', '1e5', '1E5', '1e-5', ' 1', '1 ', '.5', '5.', '-', '--1', '1,5', 'NaN', 'Infinity', '0x10', '1.0000000000000000001'])(
    'rejects %j',
    (input) => {
      expect(() => parseDecimal(input)).toThrow(InvalidDecimalError);
    },
  );

  test('honours a smaller decimal limit', () => {
    expect(formatDecimal(parseDecimal('1.123456', 6))).toBe('1.123456');
    expect(() => parseDecimal('1.1234567', 6)).toThrow(/more than 6 decimals/);
  });

  test('keeps full precision beyond the global decimal.js configuration', () => {
    const sum = parseDecimal('12345678901234567890.123456789012345678').plus(parseDecimal('0.000000000000000001'));
    expect(formatDecimal(sum)).toBe('12345678901234567890.123456789012345679');
    expect(BaseDecimal.precision).toBe(20);
  });
});

describe('scaled integers', () => {
  test.each<[string, number, Rounding | undefined, bigint]>([
    ['1.5', 18, undefined, 1_500_000_000_000_000_000n],
    ['0.0000000000000000019', 18, undefined, 1n],
    ['0.0000000000000000019', 18, Rounding.HALF_UP, 2n],
    ['-1.5', 0, undefined, -1n],
    ['-1.5', 0, Rounding.FLOOR, -2n],
    ['-0.4', 0, undefined, 0n],
    ['12.3456789', 6, Rounding.UP, 12_345_679n],
  ])('toScaledInteger(%s, %i) = %s', (value, decimals, rounding, expected) => {
    expect(toScaledInteger(value, decimals, rounding)).toBe(expected);
  });

  test('round-trips 18-decimal amounts and uint256 extremes exactly', () => {
    const max = 2n ** 256n - 1n;
    expect(toScaledInteger(fromScaledInteger(max))).toBe(max);
    expect(formatDecimal(fromScaledInteger(1n))).toBe('0.000000000000000001');
    expect(formatDecimal(fromScaledInteger(-1_234_500n, 6))).toBe('-1.2345');
    expect(fromScaledInteger(5n, 0).equals(new Decimal(5))).toBe(true);
  });

  test('rejects a bad number of decimals', () => {
    expect(() => toScaledInteger('1', -1)).toThrow(InvalidDecimalError);
    expect(() => fromScaledInteger(1n, 1.5)).toThrow(InvalidDecimalError);
  });
});
