/** The simulated feed reports a run of failing ticks (a database outage) once, and once when ticks flow again. */
import { CATALOGUE } from '../../../domain/catalogue';
import { SimulatedPriceSource } from '../../../price-feed/simulated-source';

test('a run of failing ticks is reported once, the recovery once with the count', async () => {
  const errors: unknown[] = [];
  const recoveries: number[] = [];
  let calls = 0;
  const source = new SimulatedPriceSource({
    assets: CATALOGUE.slice(0, 2),
    tickMs: 10,
    onError: (error) => errors.push(error),
    onRecovered: (failed) => recoveries.push(failed),
  });
  source.start(async () => {
    calls += 1;
    if (calls <= 5) throw new Error('connect ECONNREFUSED');
  });
  const deadline = Date.now() + 5_000;
  while (calls < 8 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await source.stop();
  expect(calls).toBeGreaterThanOrEqual(8);
  expect(errors).toHaveLength(1);
  expect(recoveries).toEqual([5]);
});
