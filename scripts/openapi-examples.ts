/**
 * `npm run openapi:examples`: refreshes api/contract/examples.json from real answers. Runs the API, partner and
 * on-chain suites with every answer recorded (harness/answer-examples.ts), then keeps for each operation and status
 * its first answer, and for each error code its first message. Long lists are cut to their first three items, and
 * the tests' base URL becomes the default one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiExamples } from '../api/contract/examples';
import { exitWithUsageOnHelp } from '../config/cli';

exitWithUsageOnHelp('usage: npm run openapi:examples   runs the API, partner and chain suites and refreshes api/contract/examples.json from their answers');
const TARGET = path.join(__dirname, '..', 'api', 'contract', 'examples.json');
const TEST_BASE_URL = 'http://issuer.test';
const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const MAX_ITEMS = 3;

/** A recorded body made fit for a document: short lists, the default base URL. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map(tidy);
  if (typeof value === 'string') return value.replaceAll(TEST_BASE_URL, DEFAULT_BASE_URL);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tidy(item)]));
  return value;
}

const directory = mkdtempSync(path.join(tmpdir(), 'api-examples-'));
try {
  // Not test/api/openapi.test.ts: it checks the examples this run replaces.
  const run = spawnSync('npx', ['jest', 'test/api', 'test/partner', 'test/chain', 'test/reserves', 'test/workflows/attestation-api.test.ts', '--testPathIgnorePatterns', 'openapi\\.test'], {
    stdio: 'inherit',
    env: { ...process.env, API_EXAMPLES_DIR: directory },
  });
  if (run.status !== 0) throw new Error(`the suites failed (exit ${run.status}); examples not updated`);
  const examples: ApiExamples = { answers: {}, errors: {} };
  for (const file of readdirSync(directory).sort()) {
    const body = JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Record<string, unknown>;
    const [kind, ...rest] = file.replace(/\.json$/, '').split('.');
    if (kind === 'error') examples.errors[rest[0] as keyof ApiExamples['errors']] = { message: String(body.message) };
    else (examples.answers[rest[0]!] ??= {})[rest[1]!] = tidy(body);
  }
  writeFileSync(TARGET, `${JSON.stringify(examples, null, 2)}\n`);
  console.log(`wrote ${TARGET}: ${Object.keys(examples.answers).length} operations, ${Object.keys(examples.errors).length} error codes`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
