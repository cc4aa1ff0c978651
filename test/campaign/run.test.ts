/**
 * The campaign's machinery, kept from rotting: one seed for half a minute (`runSeed`, what `npm run campaign` runs
 * per seed) — the product in its production shape as separate processes, the seeded workload, the seeded faults with
 * quick pauses so every kind is likely drawn, then settling and every invariant checked. The run must settle and
 * break nothing; the schedule, the journal and the report are written; operations and faults were made. Its own
 * PostgreSQL, chains, ledger and processes, every one stopped by its pid whatever happens.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { runSeed, summarize } from '../../campaign/run';
import { quietLogger } from '../../harness/settings';
import { ownDataDir } from '../support/database-outage';

jest.setTimeout(900_000);

const data = ownDataDir('issuer-campaign-');
afterAll(() => data.remove());

test('one seed of half a minute: operations and faults of every part, settled, no invariant broken', async () => {
  const report = await runSeed({
    seed: 1,
    minutes: 0.5,
    directory: path.join(data.path, 'seed-1'),
    logger: quietLogger(),
    settleTimeoutMs: 240_000,
    faultTiming: { gapMs: [1_000, 4_000], downMs: [500, 3_000], holdMs: [2_000, 6_000] },
  });
  const summary = summarize(report).join('\n');
  expect({ settled: report.settle.settled, inFlight: report.settle.inFlight, violations: report.violations, summary }).toEqual({ settled: true, inFlight: [], violations: [], summary: expect.any(String) });
  expect(Object.values(report.operations).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(20);
  expect(Object.values(report.faults).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(5);
  expect(report.answers.total).toBeGreaterThan(20);
  for (const file of ['schedule.jsonl', 'journal.jsonl', 'report.json']) expect(existsSync(path.join(report.directory, file))).toBe(true);
  const schedule = readFileSync(path.join(report.directory, 'schedule.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { kind: string });
  expect(new Set(schedule.map((step) => step.kind))).toEqual(new Set(['operation', 'fault', 'heal']));
  expect(summary).toMatch(/0 violations/);
});
