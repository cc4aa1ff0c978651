/**
 * Decimal arithmetic for money, prices and token amounts.
 *
 * Every amount in the platform is a `Decimal` from this module (a decimal.js clone with 100
 * significant digits, so every uint256 base-unit amount and every 18-decimal value stays exact),
 * a canonical decimal string at the edges, or a `bigint` of base units at the chain edge. The
 * global decimal.js configuration is never touched.
 */
import BaseDecimal from 'decimal.js';

/** decimal.js constructor with enough precision for uint256 and 18-decimal amounts; never prints exponents. */
export const Decimal = BaseDecimal.clone({
  precision: 100,
  rounding: BaseDecimal.ROUND_HALF_EVEN,
  toExpNeg: -1000,
  toExpPos: 1000,
});
export type Decimal = BaseDecimal;

/** Anything `toDecimal` accepts: a Decimal (of any clone) or a decimal string. */
export type DecimalInput = BaseDecimal | string;

/** decimal.js rounding modes, named. */
export const Rounding = {
  UP: BaseDecimal.ROUND_UP,
  DOWN: BaseDecimal.ROUND_DOWN,
  CEIL: BaseDecimal.ROUND_CEIL,
  FLOOR: BaseDecimal.ROUND_FLOOR,
  HALF_UP: BaseDecimal.ROUND_HALF_UP,
  HALF_EVEN: BaseDecimal.ROUND_HALF_EVEN,
} as const;
export type Rounding = (typeof Rounding)[keyof typeof Rounding];

/** Most decimals an amount may carry anywhere in the platform (ERC-20 tokens here use 18). */
export const MAX_DECIMALS = 18;

/** A string that is not a plain decimal number, or a value that cannot be represented. */
export class InvalidDecimalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidDecimalError';
  }
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Parses a plain decimal string strictly: optional '-', digits, optional '.' followed by at most
 * `maxDecimals` digits. Rejects exponents, a leading '+', whitespace, '.5', '5.', empty strings,
 * NaN and Infinity.
 */
export function parseDecimal(s: string, maxDecimals: number = MAX_DECIMALS): Decimal {
  if (typeof s !== 'string' || !PLAIN_DECIMAL.test(s)) {
    throw new InvalidDecimalError(`not a plain decimal number: ${JSON.stringify(s)}`);
  }
  const point = s.indexOf('.');
  if (point >= 0 && s.length - point - 1 > maxDecimals) {
    throw new InvalidDecimalError(`more than ${maxDecimals} decimals: ${s}`);
  }
  return new Decimal(s);
}

/** Converts a Decimal of any clone (or a plain decimal string) into this module's Decimal. */
export function toDecimal(value: DecimalInput): Decimal {
  if (typeof value === 'string') return parseDecimal(value, Number.MAX_SAFE_INTEGER);
  if (!value.isFinite()) throw new InvalidDecimalError(`not a finite number: ${value.toString()}`);
  return value instanceof Decimal && value.constructor === Decimal ? value : new Decimal(value);
}

/**
 * Canonical string of a decimal: at most `maxDecimals` decimals (rounded with `rounding`,
 * half-even unless told), no exponent, no trailing zeros, no "-0".
 */
export function formatDecimal(
  value: DecimalInput,
  maxDecimals: number = MAX_DECIMALS,
  rounding: Rounding = Rounding.HALF_EVEN,
): string {
  const rounded = toDecimal(value).toDecimalPlaces(maxDecimals, rounding);
  if (rounded.isZero()) return '0';
  return rounded.toFixed();
}

/**
 * The integer number of base units of `value` at `decimals` decimals
 * (`1.5` at 18 decimals is 1500000000000000000n). Sub-unit remainders are rounded with
 * `rounding`, toward zero unless told.
 */
export function toScaledInteger(
  value: DecimalInput,
  decimals: number = MAX_DECIMALS,
  rounding: Rounding = Rounding.DOWN,
): bigint {
  assertDecimals(decimals);
  const scaled = toDecimal(value).times(new Decimal(10).pow(decimals)).toDecimalPlaces(0, rounding);
  return BigInt(scaled.isZero() ? '0' : scaled.toFixed());
}

/** The exact decimal value of `units` base units at `decimals` decimals. */
export function fromScaledInteger(units: bigint, decimals: number = MAX_DECIMALS): Decimal {
  assertDecimals(decimals);
  return new Decimal(units.toString()).dividedBy(new Decimal(10).pow(decimals));
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 77) {
    throw new InvalidDecimalError(`decimals must be an integer from 0 to 77, got ${decimals}`);
  }
}
