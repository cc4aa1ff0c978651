/**
 * `npm run campaign:check` against a database: `0 violations` and exit 0 on a consistent history; each violation on a
 * line and exit 1 once one is broken; liveness said not checked without a Temporal service, checked with one
 * (TEMPORAL_ADDRESS: an in-memory service here, its one workflow ended without completing).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startTemporalServer } from '../../temporal-server';
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
function campaignCheck(env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'campaign/check.ts')],
      { cwd: ROOT, env: { PATH: process.env.PATH, DATABASE_URL: database.url, DATA_DIR: dataDir, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('0 violations on a consistent history; a broken one is printed and exits 1', async () => {
  const notLive = 'liveness (6) not checked: no TEMPORAL_ADDRESS, and stack.json names no Temporal service\n';
  expect(await campaignCheck()).toEqual({ code: 0, stdout: `${notLive}0 violations\n`, stderr: '' });
  await database.db.query(`DELETE FROM hedge_obligations WHERE tx_hash = $1`, [tx(1)]);
  expect(await campaignCheck()).toEqual({
    code: 1,
    stdout:
      `[2 exactly once] a final execution owes no hedge obligation: chain=ethereum-1 txHash=${tx(1)} logIndex=0 attestationId=1 ` +
      `quantity=2000000000000000000\n${notLive}1 violation\n`,
    stderr: '',
  });
}, 240_000);

test('with TEMPORAL_ADDRESS, liveness is checked: a workflow that ended without completing is printed', async () => {
  await resetHistory(database.db);
  await insertConsistentHistory(database.db);
  const server = await startTemporalServer();
  const connection = await Connection.connect({ address: server.address });
  try {
    const handle = await new Client({ connection }).workflow.start('attestationWorkflow', { workflowId: 'attestation-terminated', taskQueue: 'nobody-polls', args: [] });
    await handle.terminate('the test ends it');
    expect(await campaignCheck({ TEMPORAL_ADDRESS: server.address })).toEqual({
      code: 1,
      stdout: `[6 liveness] a workflow ended without completing: workflowId=attestation-terminated runId=${handle.firstExecutionRunId} type=attestationWorkflow status=TERMINATED\n1 violation\n`,
      stderr: '',
    });
  } finally {
    await connection.close();
    await server.stop();
  }
}, 240_000);
