/**
 * The deterministic simulated market: underlying and token prices and per-second volume of every
 * catalogue asset at any instant, from a seed. Same (asset, t, seed) → same answer, in a few
 * microseconds, with no state beyond caches of per-asset constants.
 *
 * - Underlying: a single asset follows its fractal value-noise path (see `single-asset-path.ts`); a
 *   portfolio is worth Σ units × constituent token price. Both are frozen while the underlying is
 *   closed. 4 decimals, half-even.
 * - Token: underlying × shares multiplier × (1 + premium), 10 decimals, half-even. The premium is a
 *   small seeded noise (at most ±0.05 %) that runs whenever the token trades, so tokens tradable
 *   off-hours move (and form candles) while their underlying is closed; otherwise it is frozen too.
 */
import { type Session } from '../calendar';
import { findAsset } from '../catalogue';
import { multiplierSchedule } from './multiplier';
import { type AssetDefinition } from '../catalogue/types';
import { Decimal, Rounding } from '../money';
import { type Octave, fractalNoise, hashString, latticeValue, mixHash, octaveKeys, unitHash } from './noise';
import { DEFAULT_PRICE_SEED, UNDERLYING_PRICE_DECIMALS, cumulativeSplitRatio, rawSingleAssetPrice } from './single-asset-path';
import { type MarketSide, cachedSessionInterval, isMarketOpen, tokenEffectiveTime, underlyingEffectiveTime } from './trading-hours';
import { memoByAssetAndSeed } from '../catalogue/memo';

export { DEFAULT_PRICE_SEED, UNDERLYING_PRICE_DECIMALS, listingTime } from './single-asset-path';
export { type MarketSide, isTokenOpen, isUnderlyingOpen } from './trading-hours';

/** Bound once: hot paths then skip a global lookup per call (slow in sandboxed runtimes such as jest's). */
const { floor } = Math;

/** Decimals of a simulated token price. */
export const TOKEN_PRICE_DECIMALS = 10;
/** Largest premium (or discount) of a token over underlying × multiplier: 0.05 %. */
export const MAX_PREMIUM = 0.0005;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Premium noise: drifts over hours, wiggles by the minute; amplitudes sum to 1. */
const PREMIUM_OCTAVES: readonly Octave[] = [
  { periodMs: 4 * HOUR_MS, amplitude: 0.4 },
  { periodMs: HOUR_MS, amplitude: 0.3 },
  { periodMs: 10 * MINUTE_MS, amplitude: 0.2 },
  { periodMs: MINUTE_MS, amplitude: 0.1 },
];

/** Volume: intraday swings in activity over about an hour. */
const ACTIVITY_PERIOD_MS = HOUR_MS;

/** Share of an underlying's daily volume per session, and the session's nominal length in seconds. */
const SESSION_VOLUME: Readonly<Record<Session, { share: number; seconds: number }>> = {
  premarket: { share: 0.04, seconds: 5.5 * 3600 },
  regular: { share: 0.88, seconds: 6.5 * 3600 },
  postmarket: { share: 0.05, seconds: 4 * 3600 },
  overnight: { share: 0.03, seconds: 8 * 3600 },
  // Only tokens trade off-hours; they see overnight-like activity.
  offhours: { share: 0.03, seconds: 8 * 3600 },
  // In a transition pause only the tokens tradable off-hours trade (they keep ticking through it).
  paused: { share: 0.03, seconds: 8 * 3600 },
};
/** Token volume as a fraction of underlying share volume. */
const PRIMARY_VOLUME_RATIO = 0.002;
/** Decimals of simulated volume: whole underlying shares, token amounts to 6 decimals. */
const VOLUME_DECIMALS: Readonly<Record<MarketSide, number>> = { underlying: 0, primary: 6 };

interface TokenModel {
  premiumKeys: Uint32Array;
  volumeKey: Record<MarketSide, number>;
  activityKey: Record<MarketSide, number>;
  dailyVolume: number;
  constituents: readonly { asset: AssetDefinition; units: number }[];
  /** The multiplier schedule as numbers, for the double-precision price pipeline. */
  multiplierSteps: readonly { at: number; value: number }[];
}


function buildModel(asset: AssetDefinition, seed: number): TokenModel {
  const key = mixHash(seed >>> 0, hashString(asset.symbol));
  const constituents = asset.constituents.map((constituent) => {
    const member = findAsset(constituent.symbol);
    if (member === undefined || member.kind === 'portfolio') {
      throw new Error(`${asset.symbol}: constituent ${constituent.symbol} is not a single asset in the catalogue`);
    }
    return { asset: member, units: Number(constituent.units) };
  });
  return {
    premiumKeys: octaveKeys(mixHash(key, 1), PREMIUM_OCTAVES),
    volumeKey: { primary: mixHash(key, 2), underlying: mixHash(key, 3) },
    activityKey: { primary: mixHash(key, 4), underlying: mixHash(key, 5) },
    dailyVolume: Number(asset.averageDailyVolume),
    constituents,
    multiplierSteps: multiplierSchedule(asset, seed).map((step) => ({ at: step.at, value: step.value.toNumber() })),
  };
}

const modelOf = memoByAssetAndSeed(buildModel);

/** `x` rounded half-even to `decimals` decimals, as an integer count of 10^-decimals units. */
function scaledHalfEven(x: number, decimals: number): number {
  const scaled = x * 10 ** decimals;
  const whole = floor(scaled);
  const rest = scaled - whole;
  if (rest > 0.5) return whole + 1;
  if (rest < 0.5) return whole;
  return whole % 2 === 0 ? whole : whole + 1;
}

/** Exact Decimal of `units` × 10^-decimals. */
function fromScaled(units: number, decimals: number): Decimal {
  return new Decimal(`${units}e-${decimals}`);
}

function multiplierValueAt(model: TokenModel, t: number): number {
  const steps = model.multiplierSteps;
  for (let i = steps.length - 1; i > 0; i--) {
    const step = steps[i] as { at: number; value: number };
    if (t >= step.at) return step.value;
  }
  return (steps[0] as { value: number }).value;
}

/*
 * The pipeline runs in double precision (the model is noise; doubles are deterministic for a given
 * Node version) and rounds once per price, in units of the last decimal: 4 for underlyings, 10 for
 * tokens. Public functions turn those integers into exact Decimals.
 */

function underlyingUnits(asset: AssetDefinition, t: number, seed: number): number {
  if (asset.kind !== 'portfolio') return scaledHalfEven(rawSingleAssetPrice(asset, t, seed), UNDERLYING_PRICE_DECIMALS);
  const at = underlyingEffectiveTime(asset, t);
  let sum = 0;
  for (const constituent of modelOf(asset, seed).constituents) {
    sum += constituent.units * tokenUnits(constituent.asset, at, seed) / 10 ** TOKEN_PRICE_DECIMALS;
  }
  return scaledHalfEven(sum, UNDERLYING_PRICE_DECIMALS);
}

function premiumAt(model: TokenModel, effectiveTime: number): number {
  return MAX_PREMIUM * fractalNoise(effectiveTime, PREMIUM_OCTAVES, model.premiumKeys);
}

function tokenUnits(asset: AssetDefinition, t: number, seed: number): number {
  // Everything is read at the token's effective time, so a closed token is entirely frozen.
  const at = tokenEffectiveTime(asset, t);
  const model = modelOf(asset, seed);
  const underlying = underlyingUnits(asset, at, seed) / 10 ** UNDERLYING_PRICE_DECIMALS;
  return scaledHalfEven(underlying * multiplierValueAt(model, at) * (1 + premiumAt(model, at)), TOKEN_PRICE_DECIMALS);
}

/**
 * Underlying price of `asset` at `t` (epoch ms), frozen while the underlying market is closed;
 * 4 decimals, half-even. A portfolio's is Σ units × constituent token price.
 */
export function underlyingPrice(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): Decimal {
  return fromScaled(underlyingUnits(asset, t, seed), UNDERLYING_PRICE_DECIMALS);
}

/** Premium of the token over underlying × multiplier at `t`, as a fraction within ±{@link MAX_PREMIUM}. */
export function premium(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): number {
  return premiumAt(modelOf(asset, seed), tokenEffectiveTime(asset, t));
}

/**
 * Token price of `asset` at `t`: underlying × shares multiplier × (1 + premium), 10 decimals,
 * half-even; frozen while the token does not trade.
 */
export function tokenPrice(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): Decimal {
  return fromScaled(tokenUnits(asset, t, seed), TOKEN_PRICE_DECIMALS);
}

/** Token and underlying price of `asset` at one instant. */
export interface PricePoint {
  token: Decimal;
  underlying: Decimal;
}

/** Both prices of `asset` at `t`: the same values as {@link tokenPrice} and {@link underlyingPrice}. */
export function pricesAt(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): PricePoint {
  return { token: tokenPrice(asset, t, seed), underlying: underlyingPrice(asset, t, seed) };
}

/**
 * Simulated volume traded on `market` of `asset` in the one-second tick starting at `t`: the
 * session's share of the average daily volume spread over the session, varied per second and by
 * hourly activity swings; in post-split shares after a split. Zero while that market is closed.
 * Underlying volume is whole shares, token volume has 6 decimals.
 */
export function tickVolume(asset: AssetDefinition, t: number, market: MarketSide, seed: number = DEFAULT_PRICE_SEED): Decimal {
  const { session } = cachedSessionInterval(t);
  if (!isMarketOpen(asset, market, session)) return new Decimal(0);
  const model = modelOf(asset, seed);
  const profile = SESSION_VOLUME[session];
  const second = floor(t / 1000);
  const perSecond = (model.dailyVolume * profile.share) / profile.seconds;
  const activity = 1 + 0.5 * latticeValue(model.activityKey[market], floor(t / ACTIVITY_PERIOD_MS));
  const jitter = 0.25 + 1.5 * unitHash(model.volumeKey[market], second);
  const ratio = market === 'primary' ? PRIMARY_VOLUME_RATIO : 1;
  const volume = perSecond * activity * jitter * ratio * cumulativeSplitRatio(asset, t);
  return new Decimal(volume).toDecimalPlaces(VOLUME_DECIMALS[market], Rounding.HALF_EVEN);
}
