/**
 * One seed of the campaign: the product started in its production shape (campaign/stack.ts), the seeded workload and
 * the seeded faults run together for the given minutes, then the faults stopped and healed, the product left to
 * settle (bounded), and every invariant checked. Everything a run did is kept in its directory: `schedule.jsonl` (every
 * operation, fault and heal, in order, with its time), `journal.jsonl` (every answer the workload received) and
 * `report.json` (the figures and the violations); the stack's own logs beside them.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { loadConfig } from '../config';
import type { Logger } from '../config/logger';
import { DEFAULT_FAULT_TIMING, startFaults, type FaultKind, type FaultTiming } from './faults';
import { checkAnswers } from './answer-invariants';
import { checkStack } from './check-stack';
import { formatViolation, lateSolanaExecutions, type Violation } from './invariants';
import { createJournal } from './journal';
import type { LimitCaps } from './limits-invariant';
import type { WaitingWorkflow } from './liveness';
import type { ScheduledStep } from './model';
import { seededRandom } from './random';
import { settle, type SettleResult } from './settle';
import { startCampaignStack } from './stack';
import { runWorkload } from './workload';

export interface SeedRunOptions {
  seed: number;
  minutes: number;
  /** The run's directory (removed first: each run starts from nothing). */
  directory: string;
  logger: Logger;
  /** Each step as it happens (the CLI prints it). */
  onStep?: (step: ScheduledStep) => void;
  /** The most the product gets to settle once the faults stop (default 5 minutes). */
  settleTimeoutMs?: number;
  faultTiming?: FaultTiming;
  /** The off-hours caps the APIs enforce, for invariant 4 (default: OFFHOURS_*_EXPOSURE_LIMIT of this process's environment, which the roles inherit). */
  caps?: LimitCaps;
  signal?: AbortSignal;
}

export interface SeedReport {
  seed: number;
  minutes: number;
  startedAt: string;
  /** Wall time of the phases, ms. */
  durations: { start: number; run: number; settle: number; check: number };
  operations: Record<string, number>;
  faults: Record<FaultKind, number>;
  answers: { total: number; byStatus: Record<string, number> };
  settle: SettleResult;
  /** Workflows waiting for a person once settled, with the reason an operator reads (not violations). */
  waiting: WaitingWorkflow[];
  /** Solana executions that landed after their expiry, before the nonce advance (invariant 3 as checkable on Solana). */
  lateSolana: { count: number; latestByMs: number };
  /** Injections or heals that themselves failed (a process that would not start again). */
  faultErrors: string[];
  violations: Violation[];
  directory: string;
}

export async function runSeed(options: SeedRunOptions): Promise<SeedReport> {
  const { seed, minutes, directory, logger } = options;
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true, mode: 0o755 });
  const startedAt = Date.now();
  const at = () => Date.now() - startedAt;
  const scheduleFile = path.join(directory, 'schedule.jsonl');
  const operations: Record<string, number> = {};
  const faultErrors: string[] = [];
  const steps: ScheduledStep[] = [];
  const record = (step: Omit<ScheduledStep, 'atMs'> & { atMs?: number }) => {
    const full: ScheduledStep = { ...step, atMs: step.atMs ?? at() };
    steps.push(full);
    if (step.kind === 'operation') operations[step.name] = (operations[step.name] ?? 0) + 1;
    appendFileSync(scheduleFile, `${JSON.stringify(full)}\n`);
    options.onStep?.(full);
  };

  const random = seededRandom(seed);
  const stack = await startCampaignStack({ dataDir: path.join(directory, 'stack'), logger, signal: options.signal, random: random.fork('links') });
  try {
    const started = Date.now();
    const journal = createJournal({ file: path.join(directory, 'journal.jsonl'), startedAt, activeFaults: () => faults.active() });
    const faults = startFaults({
      handles: stack.faults,
      random: random.fork('faults'),
      record,
      timing: options.faultTiming ?? DEFAULT_FAULT_TIMING,
      onError: (what, error) => {
        const line = `${what}: ${error instanceof Error ? error.message : String(error)}`;
        faultErrors.push(line);
        record({ kind: 'heal', name: 'error', detail: { what, error: line } });
      },
    });
    const workloadStop = new AbortController();
    // Every actor's pause and every late submission waits on it at once: more than Node's default of 10 listeners.
    setMaxListeners(100, workloadStop.signal);
    const workload = runWorkload({ target: stack.target, random: random.fork('workload'), journal, signal: workloadStop.signal, record });
    await sleepUnless(minutes * 60_000, options.signal);
    const ran = Date.now();
    await faults.stop();
    workloadStop.abort();
    await workload;

    const settling = Date.now();
    const settled = await settle({ db: stack.db, temporal: stack.temporal, target: stack.target, timeoutMs: options.settleTimeoutMs ?? 300_000, settlementGraceMs: stack.settlementGraceMs });
    const checking = Date.now();
    const checked = await checkStack(stack.db, stack.target.stack, { caps: options.caps ?? environmentCaps(), temporal: stack.temporal });
    // Invariant 8 judges the brokerage sandbox's answers too: the product ships it for partners to build against.
    const sandbox = stack.target.stack.broker as { url: string };
    const productApis = [...stack.target.apiUrls, sandbox.url];
    const violations = [...checked.violations, ...(await checkAnswers(stack.db, { journal: journal.entries(), productApis, schedule: steps }))];
    const byStatus: Record<string, number> = {};
    for (const entry of journal.entries()) byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
    const report: SeedReport = {
      seed,
      minutes,
      startedAt: new Date(startedAt).toISOString(),
      durations: { start: started - startedAt, run: ran - started, settle: checking - settling, check: Date.now() - checking },
      operations,
      faults: faults.injected(),
      answers: { total: journal.entries().length, byStatus },
      settle: settled,
      waiting: checked.waiting,
      lateSolana: await lateSolanaExecutions(stack.db),
      faultErrors,
      violations,
      directory,
    };
    writeFileSync(path.join(directory, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await stack.stop();
  }
}

function environmentCaps(): LimitCaps {
  const config = loadConfig(['OFFHOURS_GLOBAL_EXPOSURE_LIMIT', 'OFFHOURS_ASSET_EXPOSURE_LIMIT']);
  return { offhoursGlobalExposure: config.OFFHOURS_GLOBAL_EXPOSURE_LIMIT, offhoursAssetExposure: config.OFFHOURS_ASSET_EXPOSURE_LIMIT };
}

function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** The report's summary lines: figures, then the first broken invariant with its records, then the others. */
export function summarize(report: SeedReport): string[] {
  const sum = (counts: Record<string, number>) => Object.values(counts).reduce((total, count) => total + count, 0);
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
  return [
    `seed ${report.seed}: ${report.minutes} min, ${sum(report.operations)} operations (${list(report.operations)})`,
    `  faults ${sum(report.faults)} (${list(report.faults)})${report.faultErrors.length ? `, ${report.faultErrors.length} that failed themselves` : ''}`,
    `  answers ${report.answers.total} (${list(report.answers.byStatus)})`,
    `  settled ${report.settle.settled ? 'yes' : 'NO'} in ${Math.round(report.durations.settle / 1000)} s${report.settle.settled ? '' : `: ${report.settle.inFlight.map((item) => `${item.what} ${JSON.stringify(item.records)}`).join('; ')}`}`,
    ...(report.lateSolana.count > 0 ? [`  Solana executions after their expiry, before the nonce advance: ${report.lateSolana.count} (the latest by ${report.lateSolana.latestByMs} ms)`] : []),
    `  ${report.violations.length} violation${report.violations.length === 1 ? '' : 's'}`,
    ...report.violations.map((violation) => `  ${formatViolation(violation)}`),
    ...report.waiting.map((workflow) => `  waiting for a person: ${workflow.workflowId} (${workflow.type}, ${workflow.step}): ${workflow.reason}`),
    `  report: ${path.join(report.directory, 'report.json')}`,
  ];
}
