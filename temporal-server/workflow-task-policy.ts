/**
 * The Temporal server's defaults for a workflow task that this service follows: how long each attempt may take, and
 * from what history a task suggests continuing as new. Kept apart from the task state machine (run-workflow-tasks.ts)
 * that applies them.
 */

/**
 * As the Temporal server: the first three attempts of a workflow task get the run's workflow task timeout, each later
 * one that much more 5 s, 10 s, 20 s… (at most 10 minutes more), so a task slower than its timeout (a worker replaying
 * a long history on a loaded machine) is completed in the end rather than timed out for ever. The server adds a
 * jitter to the extra time; this service does not.
 */
const RETRY_BACKOFF_MIN_ATTEMPTS = 3;
const RETRY_INITIAL_EXTRA_MS = 5_000;
const RETRY_MAX_EXTRA_MS = 10 * 60_000;

/** The start-to-close timeout of attempt `attempt` of a workflow task whose run has `taskTimeoutMs`. */
export function workflowTaskAttemptTimeoutMs(taskTimeoutMs: number, attempt: number): number {
  if (attempt <= RETRY_BACKOFF_MIN_ATTEMPTS) return taskTimeoutMs;
  return taskTimeoutMs + Math.min(RETRY_INITIAL_EXTRA_MS * 2 ** (attempt - RETRY_BACKOFF_MIN_ATTEMPTS - 1), RETRY_MAX_EXTRA_MS);
}

/**
 * As the Temporal server's defaults (`limit.historyCount.suggestContinueAsNew`, `limit.historySize.suggestContinueAsNew`):
 * from this many events or bytes of history, WorkflowTaskStarted suggests continuing as new.
 */
const SUGGEST_CONTINUE_AS_NEW_EVENTS = 4 * 1024;
const SUGGEST_CONTINUE_AS_NEW_BYTES = 4 * 1024 * 1024;

/** Whether a WorkflowTaskStarted with a history of `events` events and `bytes` bytes suggests continuing as new. */
export function suggestsContinueAsNew(events: number, bytes: number): boolean {
  return events >= SUGGEST_CONTINUE_AS_NEW_EVENTS || bytes >= SUGGEST_CONTINUE_AS_NEW_BYTES;
}
