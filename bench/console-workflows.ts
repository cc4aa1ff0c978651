/** The console benchmark's workflow: takes signals until told otherwise, and answers how many it took. */
import { condition, defineQuery, defineSignal, setHandler } from '@temporalio/workflow';

const tickSignal = defineSignal<[{ n: number }]>('tick');
const benchStateQuery = defineQuery<{ ticks: number }>('benchState');

export async function benchSignalsWorkflow(): Promise<void> {
  let ticks = 0;
  setHandler(tickSignal, () => {
    ticks += 1;
  });
  setHandler(benchStateQuery, () => ({ ticks }));
  await condition(() => false);
}
