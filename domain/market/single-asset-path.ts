/**
 * The simulated price path of a single stock or ETF underlying: a fractal value-noise log price
 * (octaves from a year down to a minute) scaled to the asset's base price and annual volatility,
 * divided by the cumulative split ratio from each split's 09:30 New York open, and frozen while the
 * underlying market is closed. Deterministic in (seed, ticker, t); O(octaves) per evaluation.
 */
import { newYorkTime } from '../calendar';
import { type AssetDefinition } from '../catalogue/types';
import { Decimal, Rounding } from '../money';
import { type Octave, fractalNoise, hashString, mixHash, octaveKeys } from './noise';
import { underlyingEffectiveTime } from './trading-hours';
import { memoByAssetAndSeed } from '../catalogue/memo';

/** Bound once: hot paths then skip a global lookup per call (slow in sandboxed runtimes such as jest's). */
const { exp } = Math;

/** Seed of the default simulated feed. */
export const DEFAULT_PRICE_SEED = 20250903;

/** Decimals of a simulated underlying price. */
export const UNDERLYING_PRICE_DECIMALS = 4;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const YEAR_MS = 365 * DAY_MS;

/** Noise periods, slowest first: trends over a year down to minute-by-minute wiggles. */
const PERIODS_MS = [
  YEAR_MS, 90 * DAY_MS, 30 * DAY_MS, 7 * DAY_MS, DAY_MS, 6 * HOUR_MS, HOUR_MS, 15 * MINUTE_MS, 5 * MINUTE_MS, MINUTE_MS,
];

/**
 * Amplitude factor: the change over one period of an octave is the difference of two independent
 * uniform lattice values (standard deviation sqrt(2/3) × amplitude); scaling by sqrt(3/2) makes it
 * sigma × sqrt(period / year), as for a Brownian log price.
 */
const AMPLITUDE_FACTOR = Math.sqrt(1.5);

/** When a split takes effect and the split ratio accumulated from then on. */
export interface SplitStep {
  at: number;
  cumulativeRatio: number;
}

interface PathModel {
  octaves: Octave[];
  keys: Uint32Array;
  logBase: number;
  splitSteps: SplitStep[];
}


/** Instant (epoch ms) a split takes effect: 09:30 New York on its date. */
export function splitEffectiveTime(date: string): number {
  return newYorkTime(date, '09:30');
}

/** Epoch ms the asset's history starts: New York midnight of its listing date. */
export function listingTime(asset: AssetDefinition): number {
  return newYorkTime(asset.listedAt, '00:00');
}

function buildModel(asset: AssetDefinition, seed: number): PathModel {
  const sigma = Number(asset.annualVolatility);
  const base = Number(asset.basePrice);
  if (!(sigma >= 0) || !(base > 0)) throw new RangeError(`${asset.symbol}: invalid basePrice or annualVolatility`);
  const octaves = PERIODS_MS.map((periodMs) => ({ periodMs, amplitude: sigma * Math.sqrt(periodMs / YEAR_MS) * AMPLITUDE_FACTOR }));
  const keys = octaveKeys(mixHash(seed >>> 0, hashString(asset.ticker)), octaves);
  let cumulativeRatio = 1;
  const splitSteps = asset.splits.map((split) => {
    cumulativeRatio *= Number(split.ratio);
    return { at: splitEffectiveTime(split.date), cumulativeRatio };
  });
  // Anchor the path so that the price at listing is the base price.
  const logBase = Math.log(base) - fractalNoise(listingTime(asset), octaves, keys);
  return { octaves, keys, logBase, splitSteps };
}

const modelOf = memoByAssetAndSeed(buildModel);

/** Split ratio accumulated by instant `t` (1 before any split). */
export function cumulativeSplitRatio(asset: AssetDefinition, t: number): number {
  const steps = modelOf(asset, DEFAULT_PRICE_SEED).splitSteps;
  let ratio = 1;
  for (const step of steps) {
    if (t < step.at) break;
    ratio = step.cumulativeRatio;
  }
  return ratio;
}

/**
 * Price of a single-asset underlying at `t` as a JS number, before rounding: the model's raw value,
 * for callers (volume, statistics of the model) that need no Decimal.
 */
export function rawSingleAssetPrice(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): number {
  if (asset.kind === 'portfolio') throw new TypeError(`${asset.symbol} is a portfolio; its price comes from its constituents`);
  const model = modelOf(asset, seed);
  const at = underlyingEffectiveTime(asset, t);
  let price = exp(model.logBase + fractalNoise(at, model.octaves, model.keys));
  for (let i = model.splitSteps.length - 1; i >= 0; i--) {
    const step = model.splitSteps[i] as SplitStep;
    if (at >= step.at) {
      price /= step.cumulativeRatio;
      break;
    }
  }
  return price;
}

/** Underlying price of a stock or ETF at `t`, rounded half-even to 4 decimals. */
export function singleAssetUnderlyingPrice(asset: AssetDefinition, t: number, seed: number = DEFAULT_PRICE_SEED): Decimal {
  return new Decimal(rawSingleAssetPrice(asset, t, seed)).toDecimalPlaces(UNDERLYING_PRICE_DECIMALS, Rounding.HALF_EVEN);
}
