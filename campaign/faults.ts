/**
 * The campaign's faults, drawn from the seed: one after another, a pause drawn between them, each kind by weight —
 * a product process killed with SIGKILL and started again after a while, PostgreSQL's sessions terminated or the
 * server restarted, a reorganisation below finality on an EVM chain, the broker misbehaving for a while, a link between
 * parts slowed or cut for a while. A fault held for a while (the broker's, a link's) runs while the next ones are
 * drawn; at most one per broker and per link at a time. Every injection and every heal is a step of the schedule, and
 * `active()` names what is in force (the journal stamps each answer with it). `stop()` ends the drawing and heals
 * everything, waiting for killed processes to be running again.
 */
import type { BrokerFault, FaultHandles, LinkFault, ProductProcess, ScheduledStep } from './model';
import type { Random } from './random';

export type FaultKind = 'kill' | 'databaseSessions' | 'databaseRestart' | 'reorg' | 'broker' | 'link';

/** How often each kind is drawn, relative to the others. */
export const FAULT_WEIGHTS: Readonly<Record<FaultKind, number>> = {
  kill: 5,
  databaseSessions: 2,
  databaseRestart: 1,
  reorg: 3,
  broker: 3,
  link: 3,
};

export interface FaultTiming {
  /** The pause between two faults, drawn in [min, max] ms. */
  gapMs: [number, number];
  /** How long a killed process stays down, and a held fault (broker, link) lasts, drawn in [min, max] ms. */
  downMs: [number, number];
  holdMs: [number, number];
}

export const DEFAULT_FAULT_TIMING: FaultTiming = { gapMs: [3_000, 12_000], downMs: [500, 8_000], holdMs: [5_000, 25_000] };

export interface FaultCampaign {
  /** The faults in force now, by name (`kill api-1`, `link workers→postgres`, …). */
  active(): string[];
  /** How many of each kind were injected. */
  injected(): Record<FaultKind, number>;
  /** Stops drawing, heals every fault and waits until every product process runs again. */
  stop(): Promise<void>;
}

function brokerFault(random: Random): BrokerFault {
  switch (random.weighted({ slow: 2, failing: 2, timeout: 1, duplicate: 2, partial: 2, reject: 1 })) {
    case 'slow':
      return { kind: 'slow', delayMs: random.int(500, 5_000) };
    case 'failing':
      return { kind: 'failing', status: random.pick([500, 502, 503] as const) };
    case 'timeout':
      return { kind: 'timeout' };
    case 'duplicate':
      return { kind: 'duplicate' };
    case 'partial':
      return { kind: 'partial', maxFillQty: random.pick(['0.001', '0.01', '0.1']) };
    case 'reject':
      return { kind: 'reject' };
  }
}

function linkFault(random: Random): LinkFault {
  switch (random.weighted({ latency: 2, drops: 1, both: 1 })) {
    case 'latency':
      return { latencyMs: random.int(20, 800) };
    case 'drops':
      return { dropRate: random.pick([0.05, 0.2, 0.5]) };
    case 'both':
      return { latencyMs: random.int(20, 400), dropRate: random.pick([0.05, 0.2]) };
  }
}

const draw = (random: Random, [min, max]: [number, number]) => random.int(min, max);

/** Starts drawing faults from `random` against `handles`; `record` gets each step as it happens, `now` its time. */
export function startFaults(parameters: {
  handles: FaultHandles;
  random: Random;
  record: (step: Omit<ScheduledStep, 'atMs'>) => void;
  timing?: FaultTiming;
  /** Called when an injection or a heal itself fails (a process that will not start again): the report keeps it. */
  onError: (what: string, error: unknown) => void;
}): FaultCampaign {
  const { handles, random, record, onError } = parameters;
  const timing = parameters.timing ?? DEFAULT_FAULT_TIMING;
  const active = new Map<string, () => Promise<void>>();
  const counts: Record<FaultKind, number> = { kill: 0, databaseSessions: 0, databaseRestart: 0, reorg: 0, broker: 0, link: 0 };
  const stopping = new AbortController();
  const held = new Set<Promise<void>>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      stopping.signal.addEventListener('abort', wake, { once: true });
    });

  /** Puts a fault in force under `name` until `heal` runs (after `holdMs`, or at stop); `wait` holds the drawing loop. */
  const hold = async (name: string, holdMs: number, heal: () => Promise<void>, detail: Record<string, unknown>) => {
    let healed = false;
    const undo = async () => {
      if (healed) return;
      healed = true;
      active.delete(name);
      try {
        await heal();
        record({ kind: 'heal', name, detail: {} });
      } catch (error) {
        onError(`heal ${name}`, error);
      }
    };
    active.set(name, undo);
    record({ kind: 'fault', name, detail: { ...detail, holdMs } });
    await sleep(holdMs);
    await undo();
  };

  const inject = async (kind: FaultKind): Promise<void> => {
    switch (kind) {
      case 'kill': {
        const running = handles.processes.filter((process) => process.running() && !active.has(`kill ${process.name}`));
        if (running.length === 0) return;
        const process: ProductProcess = random.pick(running);
        const downMs = draw(random, timing.downMs);
        counts.kill++;
        await process.kill();
        // The drawing goes on while it is down; it is started again after downMs (or at stop).
        track(hold(`kill ${process.name}`, downMs, () => process.restart(), { role: process.role }));
        return;
      }
      case 'databaseSessions': {
        counts.databaseSessions++;
        const terminated = await handles.database.terminateConnections();
        record({ kind: 'fault', name: 'database sessions terminated', detail: { terminated } });
        return;
      }
      case 'databaseRestart': {
        if (active.has('database restart')) return;
        const downMs = draw(random, timing.downMs);
        counts.databaseRestart++;
        active.set('database restart', async () => undefined);
        record({ kind: 'fault', name: 'database restart', detail: { downMs } });
        try {
          await handles.database.restart(downMs);
          record({ kind: 'heal', name: 'database restart', detail: {} });
        } finally {
          active.delete('database restart');
        }
        return;
      }
      case 'reorg': {
        const chain = random.pick(handles.chains);
        const maxDepth = await chain.maxReorgDepth();
        if (maxDepth < 1) return;
        const depth = random.int(1, maxDepth);
        counts.reorg++;
        record({ kind: 'fault', name: `reorg ${chain.chain}`, detail: { depth, maxDepth } });
        await chain.reorg(depth);
        return;
      }
      case 'broker': {
        if (active.has('broker')) return;
        const fault = brokerFault(random);
        counts.broker++;
        handles.broker.set(fault);
        track(hold('broker', draw(random, timing.holdMs), async () => handles.broker.set(undefined), { ...fault }));
        return;
      }
      case 'link': {
        const free = handles.links.filter((link) => !active.has(`link ${link.name}`));
        if (free.length === 0) return;
        const link = random.pick(free);
        const fault = linkFault(random);
        counts.link++;
        link.set(fault);
        track(hold(`link ${link.name}`, draw(random, timing.holdMs), async () => link.set(undefined), { ...fault }));
        return;
      }
    }
  };

  function track(promise: Promise<void>): void {
    held.add(promise);
    void promise.finally(() => held.delete(promise));
  }

  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await sleep(draw(random, timing.gapMs));
      if (stopping.signal.aborted) break;
      const kind = random.weighted(FAULT_WEIGHTS);
      try {
        await inject(kind);
      } catch (error) {
        onError(`inject ${kind}`, error);
      }
    }
  })();

  return {
    active: () => [...active.keys()],
    injected: () => ({ ...counts }),
    async stop() {
      stopping.abort();
      await loop;
      await Promise.all([...active.values()].map((undo) => undo()));
      await Promise.all([...held]);
      // A process whose restart failed is tried once more: the product must be whole before it settles.
      for (const process of handles.processes) {
        if (!process.running()) {
          try {
            await process.restart();
            record({ kind: 'heal', name: `kill ${process.name}`, detail: { again: true } });
          } catch (error) {
            onError(`restart ${process.name}`, error);
          }
        }
      }
    },
  };
}
