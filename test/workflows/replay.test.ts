/**
 * Replay: histories of the product's workflows recorded by their tests (test/histories/product/*.json,
 * re-recorded with `RECORD_HISTORIES=1 npx jest test/workflows test/chain`) must replay without nondeterminism against
 * the current workflow code — a change that would break running workflows fails here. `redemption-before-partner-flow`
 * was recorded with the redemption workflow as it was before the partner flow (16a0c6b): it replays through
 * `patched('partner-redemption')`; `attestation-expired` was recorded before attestations could be `executing` and
 * replays through `patched('chain-finality')`; `partner-mint-completed`, `partner-mint-rejected` and
 * `redemption-delivered` were recorded before callbacks the broker refuses were bounded and refused mints stored for
 * review: they replay through `patched('partner-callback-review')` and `patched('partner-mint-review')`;
 * `chain-watcher-halted-resumed`, `hedge-filled`, `reserves-recomputed` and `market-data-retention` were recorded before
 * the long-lived workflows' run limits and replay through `patched('long-lived-limits')`, which
 * `market-data-retention-long-lived` was recorded with; those and `market-data-retention-long-lived` were recorded
 * before the webhook history was pruned, and replay through `patched('webhook-retention')`, which
 * `market-data-retention-webhooks` was recorded with.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyFromJsonText, productBundle, productHistoryFiles } from '../support/temporal';

const files = productHistoryFiles();

beforeAll(() => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // Another test file in this worker installed it.
  }
});

test('histories of every product workflow are recorded', () => {
  expect(files.map((file) => path.basename(file)).sort()).toEqual([
    'attestation-executed.json',
    'attestation-executing-then-executed.json',
    'attestation-expired.json',
    'attestation-solana-executed.json',
    'attestation-solana-expired-advanced-before.json',
    'attestation-solana-expired.json',
    'chain-watcher-halted-resumed.json',
    'hedge-filled.json',
    'market-data-retention-long-lived.json',
    'market-data-retention-webhooks.json',
    'market-data-retention.json',
    'partner-mint-callback-retried.json',
    'partner-mint-callback-reviewed.json',
    'partner-mint-completed.json',
    'partner-mint-rejected.json',
    'partner-mint-review-rejected.json',
    'partner-mint-review-resumed.json',
    'redemption-before-partner-flow.json',
    'redemption-delivered.json',
    'redemption-over-limit.json',
    'reserves-recomputed.json',
    'solana-nonce-pool.json',
    'wallet-registration.json',
    'webhook-endpoint-retried-deleted.json',
  ]);
});

test.each(files.map((file) => [path.basename(file), file]))('%s replays deterministically', async (_name, file) => {
  const history = historyFromJsonText(readFileSync(file, 'utf8'));
  const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? path.basename(file);
  await expect(Worker.runReplayHistory({ workflowBundle: { code: await productBundle() } }, history, workflowId)).resolves.toBeUndefined();
});
