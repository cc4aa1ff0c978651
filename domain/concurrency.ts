/** Bounded concurrency for batches of independent calls (workflow starts, signals). */

/** Runs `run` over `items` with at most `concurrency` calls in flight; rejects with the first failure. */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next]!;
      next += 1;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
