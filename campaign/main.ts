/**
 * `npm run campaign -- --seed <n> --minutes <m>` (or `--seeds a..b` for several in a row): runs the fault campaign
 * (campaign/run.ts) for each seed, printing its schedule as it happens and its report at the end, each kept under
 * `DATA_DIR/campaign/seed-<n>/`. Exits 1 when any seed broke an invariant, 2 when a run could not be made.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { createLogger } from '../config/logger';
import { runSeed, summarize, type SeedReport } from './run';

const usage = `usage: npm run campaign -- (--seed <n> | --seeds <a>..<b>) [--minutes <m>] [--settle-minutes <s>] [--quiet]
  runs the product in its production shape under a seeded workload and seeded faults for <m> minutes (default 5) per
  seed, lets it settle (at most <s> minutes, default 5), checks the invariants (campaign/README.md); the schedule,
  the answers and the report of each seed are kept in DATA_DIR/campaign/seed-<n>/. --quiet prints faults only.
  Exits 1 when a seed broke an invariant.`;

export function parseSeeds(options: { seed?: string; seeds?: string }): number[] {
  if (options.seed !== undefined && options.seeds !== undefined) throw new Error('give --seed or --seeds, not both');
  if (options.seed !== undefined) {
    if (!/^\d+$/.test(options.seed)) throw new Error(`--seed must be a whole number, not "${options.seed}"`);
    return [Number(options.seed)];
  }
  const range = /^(\d+)\.\.(\d+)$/.exec(options.seeds ?? '');
  if (!range) throw new Error('give --seed <n> or --seeds <a>..<b>');
  const [from, to] = [Number(range[1]), Number(range[2])];
  if (to < from) throw new Error(`--seeds ${options.seeds}: the range is empty`);
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

async function main(): Promise<void> {
  exitWithUsageOnHelp(usage);
  const { values } = parseArgs({
    options: { seed: { type: 'string' }, seeds: { type: 'string' }, minutes: { type: 'string', default: '5' }, 'settle-minutes': { type: 'string', default: '5' }, quiet: { type: 'boolean', default: false } },
  });
  const seeds = parseSeeds(values);
  const minutes = Number(values.minutes);
  const settleMinutes = Number(values['settle-minutes']);
  if (!(minutes > 0) || !(settleMinutes > 0)) throw new Error('--minutes and --settle-minutes must be positive numbers');
  const config = loadConfig(['DATA_DIR', 'LOG_LEVEL', 'LOG_FORMAT']);
  // The schedule is what a run prints; the stack's own logs only from warnings up, unless LOG_LEVEL says otherwise.
  const logger = createLogger({ level: process.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn', format: config.LOG_FORMAT });
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

  const reports: SeedReport[] = [];
  for (const seed of seeds) {
    if (stop.signal.aborted) break;
    process.stdout.write(`seed ${seed}: starting the product (${minutes} min of workload and faults)\n`);
    const report = await runSeed({
      seed,
      minutes,
      directory: path.join(config.DATA_DIR, 'campaign', `seed-${seed}`),
      logger,
      settleTimeoutMs: settleMinutes * 60_000,
      signal: stop.signal,
      onStep: (step) => {
        if (values.quiet && step.kind === 'operation') return;
        process.stdout.write(`  ${(step.atMs / 1000).toFixed(1).padStart(7)} s ${step.kind.padEnd(9)} ${step.name} ${JSON.stringify(step.detail)}\n`);
      },
    });
    reports.push(report);
    process.stdout.write(`${summarize(report).join('\n')}\n`);
  }
  const broken = reports.filter((report) => report.violations.length > 0 || !report.settle.settled);
  process.stdout.write(`${reports.length} seed${reports.length === 1 ? '' : 's'} run, ${broken.length} with violations${broken.length ? `: ${broken.map((report) => report.seed).join(', ')}` : ''}\n`);
  if (broken.length > 0) process.exitCode = 1;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  });
}
