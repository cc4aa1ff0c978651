/**
 * Deterministic fractal value noise: the random-looking but reproducible raw material of the
 * simulated price paths. Pure JS numbers (this is a model, not money); callers convert once to
 * Decimal. Every evaluation is O(octaves) integer hashes and no allocation.
 */

/** Bound once: hot paths then skip a global lookup per call (slow in sandboxed runtimes such as jest's). */
const { imul, floor } = Math;

/** One lattice of the fractal: values change smoothly over `periodMs` with amplitude `amplitude`. */
export interface Octave {
  periodMs: number;
  amplitude: number;
}

/** A 32-bit avalanche hash (lowbias32 by Chris Wellons): every input bit flips ~half the output bits. */
export function hash32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hash of a string (FNV-1a then avalanche), used to give each ticker its own noise stream. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = imul(h, 0x01000193);
  }
  return hash32(h);
}

/** Combines a stream key with further integers, order-sensitive. */
export function mixHash(key: number, ...parts: number[]): number {
  let h = key >>> 0;
  for (const part of parts) h = hash32(h ^ hash32(part + 0x9e3779b9));
  return h;
}

/** A lattice value in [-1, 1) for lattice point `index` of the stream `key`. */
export function latticeValue(key: number, index: number): number {
  // index may exceed 32 bits for very short periods; fold the high part in so it still matters.
  const low = index >>> 0;
  const high = floor(index / 4294967296) >>> 0;
  const h = hash32(key ^ hash32(low ^ imul(high, 0x27d4eb2d)));
  return h / 2147483648 - 1;
}

/** Quintic smoothstep: C2-continuous interpolation weight for f in [0, 1]. */
function fade(f: number): number {
  return f * f * f * (f * (f * 6 - 15) + 10);
}

/**
 * Per-octave stream keys for a noise source, derived once from its key; pass them to `fractalNoise`.
 */
export function octaveKeys(key: number, octaves: readonly Octave[]): Uint32Array {
  const keys = new Uint32Array(octaves.length);
  for (let i = 0; i < octaves.length; i++) keys[i] = mixHash(key, i + 1);
  return keys;
}

/**
 * Sum over octaves of smoothly interpolated lattice values at time `t` (ms). Continuous in t;
 * bounded by the sum of amplitudes.
 */
export function fractalNoise(t: number, octaves: readonly Octave[], keys: Uint32Array): number {
  let sum = 0;
  for (let i = 0; i < octaves.length; i++) {
    const octave = octaves[i] as Octave;
    const key = keys[i] as number;
    const x = t / octave.periodMs;
    const index = floor(x);
    const v0 = latticeValue(key, index);
    const v1 = latticeValue(key, index + 1);
    sum += octave.amplitude * (v0 + (v1 - v0) * fade(x - index));
  }
  return sum;
}

/** A value in [0, 1) for an integer slot of a stream (e.g. one second of volume). */
export function unitHash(key: number, slot: number): number {
  return latticeValue(key, slot) * 0.5 + 0.5;
}
