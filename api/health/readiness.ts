/**
 * Readiness: each dependency the API needs, probed with a deadline. PostgreSQL and Temporal are built in; other
 * parts (the chains, their watchers) register a probe through `ApiDependencies.readinessChecks`.
 */
import type { Client as TemporalClient } from '@temporalio/client';
import type { Database } from '../../db/pool';
import { readWatcherCursor } from '../../db/queries/chain-watcher';
import { stallMessage, watcherStalled } from '../../domain/watcher-stall';

/**
 * A probe resolves when its dependency answers and rejects (or takes too long) when it does not: with a
 * `DependencyDown` when it can say why in words fit for anyone (nothing internal), else it reads `unreachable`.
 */
export type ReadinessProbe = () => Promise<unknown>;

/** A dependency that answers but is down for a reason it names (e.g. a halted chain watcher). */
export class DependencyDown extends Error {
  override readonly name = 'DependencyDown';
}

export type DependencyState = { status: 'up'; latencyMs: number } | { status: 'down'; error: string } | { status: 'not configured' };

export interface Readiness {
  ready: boolean;
  checks: Record<string, DependencyState>;
}

const PROBE_DEADLINE_MS = 2_000;

/** Runs one probe within the deadline. */
export async function probeDependency(run: ReadinessProbe | undefined): Promise<DependencyState> {
  if (!run) return { status: 'not configured' };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), PROBE_DEADLINE_MS);
  });
  try {
    const outcome = await Promise.race([run().then(() => 'up' as const), deadline]);
    if (outcome === 'timed out') return { status: 'down', error: 'timed out' };
    return { status: 'up', latencyMs: Math.round((performance.now() - started) * 10) / 10 };
  } catch (error) {
    return { status: 'down', error: error instanceof DependencyDown ? error.message : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

/** Probes every dependency at once; ready when none is down. */
export async function checkReadiness(dependencies: {
  db: Database;
  temporal?: TemporalClient;
  extra?: Record<string, ReadinessProbe>;
}): Promise<Readiness> {
  const { temporal } = dependencies;
  const probes: Record<string, ReadinessProbe | undefined> = {
    postgres: () => dependencies.db.query('SELECT 1'),
    temporal: temporal && (() => temporal.workflowService.getSystemInfo({})),
    ...dependencies.extra,
  };
  const names = Object.keys(probes);
  const states = await Promise.all(names.map((name) => probeDependency(probes[name])));
  const checks = Object.fromEntries(names.map((name, index) => [name, states[index]!]));
  return { ready: states.every((state) => state.status !== 'down'), checks };
}

/** A watched chain: its name and how to read its head now. */
export interface WatchedChain {
  chain: string;
  head(): Promise<bigint | number>;
}

/**
 * The watcher of each chain, by its name in `/ready` (`watcher <chain>`): down while it is halted, with the halt's
 * message (the chain, the block and the log) — a reorganisation deeper than its window, a log it cannot process —, and
 * while it is stalled (domain/watcher-stall.ts: no scan for a minute while the chain has blocks it has not scanned).
 * A chain that does not answer leaves its watcher unjudged: its own probe (`chain <chain>`) is down.
 */
export function chainWatcherProbes(db: Database, chains: readonly WatchedChain[]): Record<string, ReadinessProbe> {
  return Object.fromEntries(
    chains.map(({ chain, head: readHead }) => [
      `watcher ${chain}`,
      async () => {
        const [cursor, head] = await Promise.all([readWatcherCursor(db, chain), readHead().then(Number, () => undefined)]);
        if (cursor?.status === 'halted') throw new DependencyDown(`halted: ${cursor.lastError?.message ?? 'see the chain watcher'}`);
        if (cursor && head !== undefined && watcherStalled(cursor, head)) throw new DependencyDown(stallMessage(cursor, head));
      },
    ]),
  );
}
