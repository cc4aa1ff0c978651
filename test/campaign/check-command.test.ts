/**
 * `npm run campaign:check` against a database: `0 violations` and exit 0 on a consistent history; each violation on a
 * line and exit 1 once one is broken.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { insertConsistentHistory, resetHistory, tx } from './history';

const ROOT = path.join(__dirname, '..', '..');

let database: TestDb;
/** An empty DATA_DIR: no stack.json, so no chains are read. */
let dataDir: string;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), 'campaign-check-'));
  await resetHistory(database.db);
  await insertConsistentHistory(database.db);
});

afterAll(async () => {
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the command to its end; answers its exit code and output. */
function campaignCheck(): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'campaign/check.ts')],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: database.url, DATA_DIR: dataDir }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('0 violations on a consistent history; a broken one is printed and exits 1', async () => {
  expect(await campaignCheck()).toEqual({ code: 0, stdout: '0 violations\n', stderr: '' });
  await database.db.query(`DELETE FROM hedge_obligations WHERE tx_hash = $1`, [tx(1)]);
  expect(await campaignCheck()).toEqual({
    code: 1,
    stdout:
      `[2 exactly once] a final execution owes no hedge obligation: chain=ethereum-1 txHash=${tx(1)} logIndex=0 attestationId=1 ` +
      `quantity=2000000000000000000\n1 violation\n`,
    stderr: '',
  });
}, 240_000);
