/**
 * `npm run ops -- history` output over recorded product histories: one readable line per event, durations in human
 * units, none of the SDK's bookkeeping; the raw form stays available (`--json`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJsonText } from '../../support/temporal';
import { timelineEntry } from '../../../inspection/workflows';
import { formatTimeline, humanDuration } from '../../../inspection/timeline-format';

const recorded = (name: string) =>
  (historyFromJsonText(readFileSync(path.join(__dirname, '..', '..', 'histories', 'product', name), 'utf8')).events ?? []).map(timelineEntry);

test.each([
  [0, '0 ms'],
  [1_500, '1.5 s'],
  [892_553, '14 min 52.553 s'],
  [3_600_000, '1 h'],
  [90_061_000, '1 d 1 h 1 min 1 s'],
])('humanDuration(%d) is %s', (ms, text) => {
  expect(humanDuration(ms)).toBe(text);
});

test('an expired attestation: one line per event with its meaning, the timer in human units, no bookkeeping', () => {
  const entries = recorded('attestation-expired.json');
  const text = formatTimeline(entries);
  const lines = text.split('\n');
  expect(lines).toHaveLength(entries.length + 1);
  expect(lines[0]).toMatch(/^started \d{4}-\d\d-\d\dT/);
  expect(text).toMatch(/^ {3}1 {2}\+0 ms +WorkflowExecutionStarted +attestationWorkflow on \S+, input \{/m);
  expect(text).toMatch(/TimerStarted +timer \d+ set for (\d+(\.\d+)? (d|h|min|s) ?)+$/m);
  expect(text).toMatch(/TimerFired +timer \d+ fired$/m);
  expect(text).toMatch(/ActivityTaskScheduled +\w+ #\d+ scheduled /m);
  expect(text).toMatch(/ActivityTaskStarted +\w+ #\d+ started, attempt 1$/m);
  expect(text).toMatch(/WorkflowExecutionCompleted +completed/m);
  for (const noise of ['binaryChecksum', 'sdkMetadata', '"ms":', 'identity', 'langUsedFlags']) expect(text).not.toContain(noise);
});

test('a retention run: activities named in their started and completed lines, continued as new', () => {
  const text = formatTimeline(recorded('market-data-retention.json'));
  expect(text).toMatch(/ActivityTaskCompleted +\w+ #\d+ completed/m);
  expect(text).toMatch(/WorkflowExecutionContinuedAsNew +continued as new run /m);
});
