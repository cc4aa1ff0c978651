/**
 * The campaign's randomness: every draw of a run comes from its seed, so a seed replays the same schedule. A small
 * generator of our own (sfc32, seeded through splitmix32) rather than Math.random: streams forked by label stay apart,
 * so adding a draw to the workload does not shift the faults' schedule.
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Picks by weight: `{ buy: 3, sell: 1 }` gives `buy` three times in four. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
  /** An independent stream for `label`, the same for the same seed and label whatever was drawn before. */
  fork(label: string): Random;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function hashLabel(seed: number, label: string): number {
  let hash = (seed ^ 0x811c9dc5) >>> 0;
  for (let index = 0; index < label.length; index++) hash = Math.imul(hash ^ label.charCodeAt(index), 0x01000193) >>> 0;
  return hash;
}

export function seededRandom(seed: number, label = ''): Random {
  const init = splitmix32(hashLabel(seed, label));
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 0x1_0000_0000;
  };
  for (let warm = 0; warm < 12; warm++) next();
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from nothing');
      return items[Math.floor(next() * items.length)]!;
    },
    weighted: (weights) => {
      const entries = Object.entries(weights) as [keyof typeof weights & string, number][];
      const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
      let draw = next() * total;
      for (const [key, weight] of entries) {
        if ((draw -= weight) < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
    fork: (child) => seededRandom(seed, `${label}/${child}`),
  };
  return random;
}
