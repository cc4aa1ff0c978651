/**
 * A chain watcher that no worker runs — as after a restart whose worker could not finish replaying it (issue 33) — is
 * down in `/ready`, in the metrics and in the console once it has recorded no scan for 60 s while its chain has blocks
 * it has not scanned (domain/watcher-stall.ts); a quiet watcher over a chain with nothing past its cursor is not. No
 * worker runs here: the cursor's last scan is set in SQL, as a stalled watcher leaves it.
 */
import { createProcessMetrics } from '../../metrics/process-metrics';
import { chainsPage } from '../../console/pages/business';
import { WATCHER_STALL_SECONDS } from '../../domain/watcher-stall';
import { createTestApi, type TestApi } from '../support/api';
import { startTestChain, type TestChain } from '../support/chains';
import { cloneTemplateDatabase, type TestDb } from '../support/database';

let database: TestDb;
let chain: TestChain;
let api: TestApi;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
  chain = await startTestChain(database.db);
  api = await createTestApi({ database, fixtureDeployments: false, chains: { [chain.chain]: chain.context } });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await chain?.stop();
  await database?.drop();
});

const WATCHER = 'watcher ethereum-1';

/** The watcher as /ready, the metrics and the console show it. */
async function judged() {
  const ready = await api.http.get('/ready');
  const metrics = await createProcessMetrics({ role: 'api', db: database.db, poolMax: 1, chains: () => ({ [chain.chain]: chain.context }) }).metrics();
  const stalled = /^issuer_chain_watcher_stalled\{chain="ethereum-1"\} (\d)$/m.exec(metrics)?.[1];
  const console = String(await chainsPage(database.db, { page: 1 }, api.app.services.readinessChecks));
  return { status: ready.status, check: ready.body.checks[WATCHER], stalled, console };
}

/** Sets when the watcher last recorded a scan, and its cursor. */
async function lastScan(secondsAgo: number, nextBlock: number): Promise<void> {
  await database.db.query(`UPDATE chain_cursors SET seen_head_at = now() - make_interval(secs => $2), next_block = $3, status = 'ok' WHERE chain = $1`, [
    chain.chain,
    secondsAgo,
    nextBlock,
  ]);
}

test('a watcher with no scan for the stall time while its chain has blocks past its cursor is down everywhere an operator looks', async () => {
  await chain.testClient.mine({ blocks: 3 });
  const head = Number(await chain.client.getBlockNumber({ cacheTime: 0 }));

  // Scanned a moment ago, blocks since: up (it is polling).
  await lastScan(1, head - 2);
  const fresh = await judged();
  expect([fresh.status, fresh.check.status, fresh.stalled]).toEqual([200, 'up', '0']);
  expect(fresh.console).not.toContain('stalled');

  // No scan for twice the stall time, blocks past its cursor: down, saying why.
  await lastScan(2 * WATCHER_STALL_SECONDS, head - 2);
  const stalled = await judged();
  expect(stalled.status).toBe(503);
  expect(stalled.check).toEqual({ status: 'down', error: expect.stringMatching(/^stalled: no scan for 1\d\d s \(down after 60 s\) while the chain is at block \d+ and the watcher's next block is \d+$/) });
  expect(stalled.stalled).toBe('1');
  expect(stalled.console).toContain('badge-down');
  expect(stalled.console).toContain(`stalled: no scan for`);

  // As long without a scan, but nothing on chain past its cursor: it misses nothing, it is not down.
  await lastScan(2 * WATCHER_STALL_SECONDS, head + 1_000);
  const idle = await judged();
  expect([idle.status, idle.check.status, idle.stalled]).toEqual([200, 'up', '0']);
});
