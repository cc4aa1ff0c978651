/** Per-asset, per-seed memoisation of derived models: built once, kept while the asset object lives. */
import type { AssetDefinition } from './types';

/** `build` wrapped so each (asset, seed) pair is built once. */
export function memoByAssetAndSeed<T>(build: (asset: AssetDefinition, seed: number) => T): (asset: AssetDefinition, seed: number) => T {
  const cache = new WeakMap<AssetDefinition, Map<number, T>>();
  return (asset, seed) => {
    let bySeed = cache.get(asset);
    if (bySeed === undefined) {
      bySeed = new Map();
      cache.set(asset, bySeed);
    }
    let value = bySeed.get(seed);
    if (value === undefined) {
      value = build(asset, seed);
      bySeed.set(seed, value);
    }
    return value;
  };
}
