/**
 * The lint rule that keeps workflows deterministic is an allow-list: a workflow module may import values only from
 * the workflow SDK, the temporal/ contract, other workflow modules and pure domain modules; anything else only as a type.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Lints each source as if it were a file in workflows/, with the project's own ESLint configuration, and answers
 * the specifiers the import rule refused in each. ESLint loads its configuration with a dynamic import that jest's
 * module sandbox does not allow, so it runs in a child node process.
 */
function restrictedImports(sources: string[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const sources = JSON.parse(process.argv[1]);
    const eslint = new ESLint({ cwd: process.cwd() });
    Promise.all(sources.map((source) => eslint.lintText(source, { filePath: 'workflows/probe.ts' }))).then((results) => {
      process.stdout.write(JSON.stringify(results.map(([result]) => result.messages
        .filter((message) => message.ruleId === 'no-restricted-imports')
        .map((message) => message.message.split("'")[1]))));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script, JSON.stringify(sources)], { cwd: ROOT, encoding: 'utf8' })) as string[][];
}

const refused: Array<[string, string]> = [
  ["import { Pool } from 'pg';", 'pg'],
  ["import { createPublicClient } from 'viem';", 'viem'],
  ["import { readFileSync } from 'node:fs';", 'node:fs'],
  ["import Decimal from 'decimal.js';", 'decimal.js'],
  ["import { createActivities } from '../activities';", '../activities'],
  ["import { issueAttestation } from '../attestations/issue-attestation';", '../attestations/issue-attestation'],
  ["import { startFeed } from '../price-feed/feed';", '../price-feed/feed'],
  ["import { loadSigners } from '../signing';", '../signing'],
  ["import { startInMemoryTemporal } from '../temporal-server';", '../temporal-server'],
  ["import { createTemporalClient } from '../temporal/client';", '../temporal/client'],
  ["import { Decimal } from '../domain/money';", '../domain/money'],
];

test('values from I/O modules, services, the server and non-pure domain modules are refused in a workflow', () => {
  const sources = refused.map(([line]) => `${line}\nexport const used = [${line.match(/\{ (\w+) \}|import (\w+)/)!.slice(1).find(Boolean)}];\n`);
  expect(restrictedImports(sources)).toEqual(refused.map(([, specifier]) => [specifier]));
});

test('the SDK, the temporal/ contract, workflows, pure domain modules and any type import are allowed', () => {
  const source = [
    "import { proxyActivities } from '@temporalio/workflow';",
    "import { attestationExecutedSignal } from '../temporal/messages';",
    "import { attestationWorkflowId } from '../temporal/workflow-ids';",
    "import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';",
    "import { attestationWorkflow } from './attestation';",
    "import { sessionIntervalAt } from '../domain/calendar';",
    "import { marketStatus } from '../domain/market-status';",
    "import type { Database } from '../db/pool';",
    "import type { AttestationActivities } from '../activities/attestations';",
    'export const used: unknown[] = [proxyActivities, attestationExecutedSignal, attestationWorkflowId, ISSUER_TASK_QUEUE, attestationWorkflow, sessionIntervalAt, marketStatus];',
    'export type Used = [Database, AttestationActivities];',
    '',
  ].join('\n');
  expect(restrictedImports([source])).toEqual([[]]);
});
