/**
 * Replay: histories recorded by the conformance suite (test/histories/*.json, re-recorded with
 * `RECORD_HISTORIES=1 npx jest test/temporal/conformance`) must replay without nondeterminism against the
 * current test workflows. Catches workflow-code changes that would break running workflows, and server
 * histories the SDK would not accept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyFromJsonText, testWorkflowBundle } from './environment';

const historiesDirectory = path.join(__dirname, '..', 'histories');
const files = readdirSync(historiesDirectory).filter((file) => file.endsWith('.json'));

beforeAll(() => {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
});

test('the recorded histories cover the suite’s main scenarios', () => {
  expect(files.length).toBeGreaterThanOrEqual(6);
});

test.each(files)('%s replays deterministically', async (file) => {
  const history = historyFromJsonText(readFileSync(path.join(historiesDirectory, file), 'utf8'));
  const code = await testWorkflowBundle();
  const workflowId = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowId || file;
  await expect(Worker.runReplayHistory({ workflowBundle: { code } }, history, workflowId)).resolves.toBeUndefined();
});
