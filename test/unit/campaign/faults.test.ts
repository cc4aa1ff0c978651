/**
 * The campaign's fault drawing (campaign/faults.ts) against handles that record what they are asked: the same seed
 * draws the same faults in the same order, every kind is drawn, what is held is in force until healed, stop() heals
 * everything and starts every killed process again, and a restart that fails is reported, not swallowed. The real
 * handles — processes, PostgreSQL, anvil, the broker and link proxies — are exercised in test/campaign/stack.test.ts.
 */
import { startFaults, type FaultTiming } from '../../../campaign/faults';
import type { BrokerFault, FaultHandles, LinkFault, ProductProcess, ScheduledStep } from '../../../campaign/model';
import { seededRandom } from '../../../campaign/random';

const FAST: FaultTiming = { gapMs: [1, 3], downMs: [1, 5], holdMs: [2, 10] };
/**
 * Faults held past the run: what is in force when the next fault is drawn then follows from the draws alone, not from
 * which of the machine's timers fired first (with FAST holds, a loaded machine heals a link a little later and the
 * next draw picks among other links).
 */
const HELD: FaultTiming = { gapMs: [1, 3], downMs: [60_000, 60_000], holdMs: [60_000, 60_000] };

interface Recorded {
  handles: FaultHandles;
  calls: string[];
  broker: (BrokerFault | undefined)[];
  links: Record<string, (LinkFault | undefined)[]>;
  processes: ProductProcess[];
}

function recordingHandles(options: { failRestartOf?: string } = {}): Recorded {
  const calls: string[] = [];
  const broker: (BrokerFault | undefined)[] = [];
  const links: Record<string, (LinkFault | undefined)[]> = { 'workers→postgres': [], 'apis→postgres': [] };
  const processes = (['api-1', 'worker-1', 'feed', 'temporal'] as const).map((name): ProductProcess => {
    let running = true;
    return {
      name,
      role: name === 'feed' || name === 'temporal' ? name : name.startsWith('api') ? 'api' : 'worker',
      running: () => running,
      kill: async () => {
        calls.push(`kill ${name}`);
        running = false;
      },
      restart: async () => {
        calls.push(`restart ${name}`);
        if (options.failRestartOf === name) throw new Error(`${name} would not start`);
        running = true;
      },
    };
  });
  const handles: FaultHandles = {
    processes,
    database: {
      terminateConnections: async () => (calls.push('terminate'), 3),
      restart: async (downMs) => void calls.push(`database restart ${downMs}`),
    },
    chains: ['ethereum-1', 'bsc-56'].map((chain) => ({ chain, maxReorgDepth: async () => 4, reorg: async (depth: number) => void calls.push(`reorg ${chain} ${depth}`) })),
    broker: { set: (fault) => void broker.push(fault) },
    links: Object.keys(links).map((name) => ({ name, set: (fault: LinkFault | undefined) => void links[name]!.push(fault) })),
  };
  return { handles, calls, broker, links, processes };
}

async function run(seed: number, ms: number, options: { failRestartOf?: string; timing?: FaultTiming } = {}) {
  const recorded = recordingHandles(options);
  const steps: Omit<ScheduledStep, 'atMs'>[] = [];
  const errors: string[] = [];
  const faults = startFaults({ handles: recorded.handles, random: seededRandom(seed).fork('faults'), record: (step) => steps.push(step), timing: options.timing ?? FAST, onError: (what) => errors.push(what) });
  const activeSeen = new Set<string>();
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    for (const name of faults.active()) activeSeen.add(name);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // What was drawn while it ran; stop() then heals (and may start killed processes again) on its own timing.
  const drawn = [...steps];
  await faults.stop();
  return { ...recorded, steps, drawn, errors, activeSeen, injected: faults.injected(), activeAfter: faults.active() };
}

test('one seed draws the same faults in the same order, and another seed others', async () => {
  const kinds = (steps: Omit<ScheduledStep, 'atMs'>[]) => steps.filter((step) => step.kind === 'fault').map((step) => step.name);
  const [first, again, other] = await Promise.all([run(7, 400, { timing: HELD }), run(7, 400, { timing: HELD }), run(8, 400, { timing: HELD })]);
  const length = Math.min(kinds(first.drawn).length, kinds(again.drawn).length, 20);
  expect(length).toBeGreaterThan(5);
  expect(kinds(again.drawn).slice(0, length)).toEqual(kinds(first.drawn).slice(0, length));
  expect(kinds(other.drawn).slice(0, length)).not.toEqual(kinds(first.drawn).slice(0, length));
});

test('every kind is drawn; stop() heals everything and every killed process runs again', async () => {
  const outcome = await run(11, 1_500);
  expect(Object.entries(outcome.injected).filter(([, count]) => count === 0)).toEqual([]);
  expect(outcome.activeAfter).toEqual([]);
  expect(outcome.processes.filter((process) => !process.running()).map((process) => process.name)).toEqual([]);
  expect(outcome.broker.at(-1)).toBeUndefined();
  for (const history of Object.values(outcome.links)) if (history.length > 0) expect(history.at(-1)).toBeUndefined();
  // Each kill is followed by its restart, and each held fault by its heal in the schedule.
  const kills = outcome.calls.filter((call) => call.startsWith('kill ')).length;
  expect(outcome.calls.filter((call) => call.startsWith('restart ')).length).toBe(kills);
  const held = outcome.steps.filter((step) => step.kind === 'fault' && /^(kill|broker|link|database restart)/.test(step.name)).length;
  expect(outcome.steps.filter((step) => step.kind === 'heal').length).toBe(held);
  expect([...outcome.activeSeen].some((name) => name.startsWith('kill '))).toBe(true);
  expect(outcome.errors).toEqual([]);
});

test('a process that will not start again is reported', async () => {
  const outcome = await run(11, 1_500, { failRestartOf: 'temporal' });
  expect(outcome.calls).toContain('kill temporal');
  expect(outcome.errors).toContain('restart temporal');
  expect(outcome.errors.every((what) => what === 'restart temporal' || what === 'heal kill temporal')).toBe(true);
});
